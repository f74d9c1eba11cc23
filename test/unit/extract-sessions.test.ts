/**
 * The session watcher: a transcript is extracted once its session has been idle, only the bytes not
 * extracted before are read (offsets persisted across restarts), a line still being written waits, and a
 * file that shrank or was replaced starts over without appending a fact twice.
 */
import { appendFile, readFile, readdir, rename, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXTRACT_STATE_FILE, completeLines, scanSessions } from '../../src/extract/sessions.js';
import { globFiles } from '../../src/extract/glob.js';
import { addCapture } from '../../src/extract/capture.js';
import { listLogDates, readLog } from '../../src/logs/factlog.js';
import { initVault } from '../../src/vault/init.js';
import { openVault, type Vault } from '../../src/vault/vault.js';
import { useFakeLlm, type ChatRequest } from '../helpers/fake-llm.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const SESSION = 'b71e02aa-1111-4222-8333-444455556666';
const line = (text: string, at: string, type: 'user' | 'assistant' = 'user'): string =>
  `${JSON.stringify({ type, sessionId: SESSION, timestamp: at, message: { role: type, content: text } })}\n`;

const NOW = new Date('2026-06-09T18:00:00Z');
const LONG_AGO = new Date('2026-06-09T12:00:00Z');

interface Fixture {
  dir: string;
  root: string;
  file: string;
  env: NodeJS.ProcessEnv;
  /** A new Vault each time: a restarted daemon. */
  open(): Promise<Vault>;
}

async function fixture(extraEnv: NodeJS.ProcessEnv = {}): Promise<Fixture> {
  const dir = await tempDir();
  const root = path.join(dir, 'vault');
  await initVault(root);
  const projects = path.join(dir, 'home', '.claude', 'projects');
  await writeTree(root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nextract:\n  idle_minutes: 10\n' });
  // Nothing is read unless named (capture.ts): these tests name Claude Code's sessions.
  await addCapture(root, 'claude-code', null);
  const env = { ...process.env, HOME: path.join(dir, 'home'), VAULTKEEPER_TIMEZONE: 'UTC', ...extraEnv };
  return { dir, root, file: path.join(projects, '-home-rui-blog', `${SESSION}.jsonl`), env, open: () => openVault({ vault: root, env }) };
}

async function write(file: string, content: string, mode: 'write' | 'append', mtime = LONG_AGO): Promise<void> {
  if (mode === 'write') await writeTree(path.dirname(file), { [path.basename(file)]: content });
  else await appendFile(file, content);
  await utimes(file, mtime, mtime);
}

/** Every fact text in the vault's logs, with how often it occurs. */
async function factCounts(root: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const date of await listLogDates(root)) for (const fact of (await readLog(root, date)).facts) counts[fact.text] = (counts[fact.text] ?? 0) + 1;
  return counts;
}

describe('session watcher', () => {
  it('extracts a growing transcript exactly once across a restart', async () => {
    const fx = await fixture();
    // The default glob (~/.claude/projects/**/*.jsonl) under the test's HOME.
    await write(fx.file, line('I prefer dark roast coffee', '2026-06-09T10:00:00Z') + line('Noted.', '2026-06-09T10:00:05Z', 'assistant'), 'write');
    const first = await scanSessions(await fx.open(), { now: NOW, offline: true });
    expect(first).toMatchObject({ files: 1, active: 0, facts: 1, errors: [] });
    expect(first.sessions).toMatchObject([{ source: 'claude-code/b71e02aa', from: 0, restarted: false, facts: 1 }]);

    // More of the session, the last line still being written.
    const partial = JSON.stringify({ type: 'user', sessionId: SESSION, timestamp: '2026-06-09T10:05:00Z', message: { role: 'user', content: 'Call me Rui' } });
    await write(fx.file, line('My wife is Ana', '2026-06-09T10:02:00Z') + partial.slice(0, 40), 'append');
    const restarted = await fx.open();
    const second = await scanSessions(restarted, { now: NOW, offline: true });
    expect(second.facts).toBe(1);
    expect(second.sessions[0]!.from).toBe(first.sessions[0]!.to);
    expect(second.sessions[0]!.to).toBeLessThan(Buffer.byteLength(await readFile(fx.file)));

    // The line is finished; a third process picks up exactly that line.
    await write(fx.file, `${partial.slice(40)}\n`, 'append');
    const third = await scanSessions(await fx.open(), { now: NOW, offline: true });
    expect(third.facts).toBe(1);
    expect(third.sessions[0]!.to).toBe(Buffer.byteLength(await readFile(fx.file)));

    // Nothing new: nothing read, nothing appended.
    const fourth = await scanSessions(await fx.open(), { now: NOW, offline: true });
    expect(fourth).toMatchObject({ unchanged: 1, facts: 0, sessions: [] });

    expect(await factCounts(fx.root)).toEqual({ 'Prefers dark roast coffee': 1, 'wife:: Ana': 1, 'preferred name:: Rui': 1 });
    const state = JSON.parse(await readFile(path.join(fx.root, EXTRACT_STATE_FILE), 'utf8')) as { files: Record<string, { offset: number; facts: number; source: string }> };
    expect(state.files[fx.file]).toMatchObject({ offset: Buffer.byteLength(await readFile(fx.file)), facts: 3, source: 'claude-code/b71e02aa' });
  });

  it('waits while a session is active, and extracts it once it has been idle for extract.idle_minutes', async () => {
    const fx = await fixture();
    const justNow = new Date(NOW.getTime() - 3 * 60_000);
    await write(fx.file, line('I live in Lisbon', '2026-06-09T17:56:00Z'), 'write', justNow);
    const vault = await fx.open();
    expect(await scanSessions(vault, { now: NOW, offline: true })).toMatchObject({ active: 1, facts: 0 });
    expect(await factCounts(fx.root)).toEqual({});
    const later = new Date(NOW.getTime() + 8 * 60_000);
    expect(await scanSessions(vault, { now: later, offline: true })).toMatchObject({ active: 0, facts: 1 });
    expect(await factCounts(fx.root)).toEqual({ 'home city:: Lisbon': 1 });
  });

  it('starts over when a file shrank or was replaced, without appending a fact twice', async () => {
    const fx = await fixture();
    await write(fx.file, line('I prefer dark roast coffee', '2026-06-09T10:00:00Z') + line('My wife is Ana', '2026-06-09T10:01:00Z'), 'write');
    await scanSessions(await fx.open(), { now: NOW, offline: true });
    // Replaced by a shorter file holding one old and one new statement.
    const replacement = `${fx.file}.new`;
    await writeFile(replacement, line('I prefer dark roast coffee', '2026-06-09T10:00:00Z') + line('Call me Rui', '2026-06-09T10:03:00Z'));
    await rename(replacement, fx.file);
    await utimes(fx.file, LONG_AGO, LONG_AGO);
    const again = await scanSessions(await fx.open(), { now: NOW, offline: true });
    expect(again.sessions).toMatchObject([{ from: 0, restarted: true, facts: 1, duplicates: 1 }]);
    expect(await factCounts(fx.root)).toEqual({ 'Prefers dark roast coffee': 1, 'wife:: Ana': 1, 'preferred name:: Rui': 1 });
  });

  it('sends the LLM only the turns it has not extracted before', async () => {
    const prompts: string[] = [];
    const reply = (text: string) => (request: ChatRequest) => {
      prompts.push(request.body.messages.find((m) => m.role === 'user')?.content ?? '');
      return { text: JSON.stringify({ facts: [{ category: 'preference', text, confidence: 0.9 }] }) };
    };
    const llm = await startLlm([reply('Prefers dark roast coffee'), reply('Prefers green tea in the evening')]);
    const fx = await fixture({ VAULTKEEPER_LLM_BASE_URL: llm.baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model' });
    await write(fx.file, line('I prefer dark roast coffee', '2026-06-09T10:00:00Z'), 'write');
    expect((await scanSessions(await fx.open(), { now: NOW })).llm_calls).toBe(1);
    await write(fx.file, line('Thanks, run the tests', '2026-06-09T10:01:00Z') + line('In the evening I prefer green tea', '2026-06-09T10:02:00Z'), 'append');
    expect((await scanSessions(await fx.open(), { now: NOW })).llm_calls).toBe(1);
    expect(await scanSessions(await fx.open(), { now: NOW })).toMatchObject({ llm_calls: 0, unchanged: 1 });
    expect(llm.requests).toHaveLength(2);
    expect(prompts[0]).toContain('dark roast');
    expect(prompts[1]).not.toContain('dark roast');
    expect(prompts[1]).toContain('green tea');
    expect(await factCounts(fx.root)).toEqual({ 'Prefers dark roast coffee': 1, 'Prefers green tea in the evening': 1 });
  });

  it('falls back to the rules when the endpoint is down (llm.fallback: offline), and says so', async () => {
    const llm = await startLlm([], { fallback: { status: 503 } });
    const fx = await fixture({ VAULTKEEPER_LLM_BASE_URL: llm.baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model' });
    await write(fx.file, line('I live in Porto', '2026-06-09T10:00:00Z'), 'write');
    const result = await scanSessions(await fx.open(), { now: NOW });
    expect(result).toMatchObject({ facts: 1, errors: [], llm_calls: 0, fallback: expect.stringMatching(/^the LLM cannot be used \(.*HTTP 503.*\); rule-based extraction instead/) });
    expect(llm.requests).toHaveLength(4);
    expect(await factCounts(fx.root)).toEqual({ 'home city:: Porto': 1 });
  });

  it('keeps its offsets when the endpoint is down and llm.fallback is wait, and extracts on the next pass', async () => {
    // The executor tries a call llm.max_attempts (4) times: four failures make the pass fail.
    const llm = await startLlm([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { text: JSON.stringify({ facts: [{ category: 'fact', text: 'home city:: Porto', confidence: 1 }] }) }]);
    const fx = await fixture({ VAULTKEEPER_LLM_BASE_URL: llm.baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model' });
    await writeTree(fx.root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nextract:\n  idle_minutes: 10\nllm:\n  fallback: wait\n' });
    await write(fx.file, line('I live in Porto', '2026-06-09T10:00:00Z'), 'write');
    const failed = await scanSessions(await fx.open(), { now: NOW });
    expect(failed.facts).toBe(0);
    expect(failed.errors).toEqual([{ file: fx.file, message: expect.stringContaining('HTTP 503') as unknown }]);
    const retried = await scanSessions(await fx.open(), { now: NOW });
    expect(retried).toMatchObject({ facts: 1, errors: [] });
    expect(await factCounts(fx.root)).toEqual({ 'home city:: Porto': 1 });
  });

  it('follows the configured globs, relative ones from the vault', async () => {
    const fx = await fixture();
    await writeTree(fx.root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nextract:\n  sessions: ["../chats/*.md", "../none/**/*.jsonl"]\n  idle_minutes: 0\n' });
    await writeTree(fx.dir, { 'chats/one.md': 'User: I live in Braga\n', 'chats/two.txt': 'User: I live in Faro\n' });
    const result = await scanSessions(await fx.open(), { offline: true });
    expect(result).toMatchObject({ files: 1, facts: 1 });
    expect(result.sessions[0]!.source).toBe('ingest/one.md');
  });

  it('reads a JSON document whole each time it changes, appending only what is new', async () => {
    const fx = await fixture();
    await writeTree(fx.root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nextract:\n  sessions: ["../chats/*.json"]\n' });
    const chat = path.join(fx.dir, 'chats', 'chat.json');
    const messages = [{ role: 'user', content: 'I live in Braga', timestamp: '2026-06-09T10:00:00Z' }];
    await write(chat, JSON.stringify({ messages }), 'write');
    expect((await scanSessions(await fx.open(), { now: NOW, offline: true })).facts).toBe(1);
    messages.push({ role: 'user', content: 'Call me Rui', timestamp: '2026-06-09T10:05:00Z' });
    // Half written: not valid JSON yet, so not read.
    await write(chat, JSON.stringify({ messages }).slice(0, -5), 'write');
    expect(await scanSessions(await fx.open(), { now: NOW, offline: true })).toMatchObject({ facts: 0, sessions: [] });
    await write(chat, JSON.stringify({ messages }), 'write');
    const again = await scanSessions(await fx.open(), { now: NOW, offline: true });
    expect(again.sessions).toMatchObject([{ source: 'ingest/chat.json', from: 0, facts: 1, duplicates: 1 }]);
    expect(await factCounts(fx.root)).toEqual({ 'home city:: Braga': 1, 'preferred name:: Rui': 1 });
  });

  it('reads a damaged state file as no state, and appends nothing twice', async () => {
    const fx = await fixture();
    await write(fx.file, line('I prefer dark roast coffee', '2026-06-09T10:00:00Z'), 'write');
    await scanSessions(await fx.open(), { now: NOW, offline: true });
    await writeFile(path.join(fx.root, EXTRACT_STATE_FILE), '{"version": 1, "files": ');
    const again = await scanSessions(await fx.open(), { now: NOW, offline: true });
    expect(again).toMatchObject({ facts: 0, sessions: [{ duplicates: 1 }] });
    expect(await factCounts(fx.root)).toEqual({ 'Prefers dark roast coffee': 1 });
    expect((await readdir(path.join(fx.root, '.vaultkeeper'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('helpers', () => {
  it('stops at the last newline unless the last line is a whole JSON value', () => {
    expect(completeLines(Buffer.from('{"a":1}\n{"b":')).toString()).toBe('{"a":1}\n');
    expect(completeLines(Buffer.from('{"a":1}\n{"b":2}')).toString()).toBe('{"a":1}\n{"b":2}');
    expect(completeLines(Buffer.from('no newline yet')).toString()).toBe('');
  });

  it('matches globs with *, **, ? and {a,b}', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'p/a/x.jsonl': '', 'p/a/b/y.jsonl': '', 'p/z.jsonl': '', 'p/a/w.json': '', 'p/a/v.md': '' });
    const rel = async (glob: string): Promise<string[]> => (await globFiles(glob, dir, dir)).map((f) => path.relative(dir, f));
    expect(await rel('p/**/*.jsonl')).toEqual(['p/a/b/y.jsonl', 'p/a/x.jsonl', 'p/z.jsonl']);
    expect(await rel('p/*/*.jsonl')).toEqual(['p/a/x.jsonl']);
    expect(await rel('~/p/a/?.{json,md}')).toEqual(['p/a/v.md', 'p/a/w.json']);
    expect(await rel('missing/**/*.jsonl')).toEqual([]);
  });
});
