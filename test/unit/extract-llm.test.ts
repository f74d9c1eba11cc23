/**
 * LLM extraction through a scripted OpenAI-compatible server on 127.0.0.1 (the only fake): typed facts
 * appended on the date the conversation happened, relative dates resolved against the turn's time, low
 * confidence dropped, invalid replies handled, and no request at all for a transcript of chatter.
 */
import { readFile, utimes } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VaultkeeperError } from '../../src/core/errors.js';
import { ingestFiles } from '../../src/extract/ingest.js';
import { parseLog } from '../../src/logs/factlog.js';
import { initVault } from '../../src/vault/init.js';
import { openVault, type Vault } from '../../src/vault/vault.js';
import { useFakeLlm, type ChatRequest, type FakeLlm, type Reply, type Step } from '../helpers/fake-llm.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const SESSION = '3f9a1c2b-7d4e-4a61-9f0e-2b8c5d6e7f80';
const entry = (type: 'user' | 'assistant', text: string, at: string): string =>
  JSON.stringify({ type, sessionId: SESSION, cwd: '/home/rui', timestamp: at, message: { role: type, content: type === 'user' ? text : [{ type: 'text', text }] } });

async function setup(script: Step[], files: Record<string, string>, config?: string): Promise<{ vault: Vault; llm: FakeLlm; dir: string }> {
  const dir = await tempDir();
  const root = path.join(dir, 'vault');
  await initVault(root);
  await writeTree(dir, files);
  if (config !== undefined) await writeTree(root, { '.vaultkeeper/config.yaml': config });
  const llm = await startLlm(script);
  const vault = await openVault({
    vault: root,
    env: { ...process.env, VAULTKEEPER_LLM_BASE_URL: llm.baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model', VAULTKEEPER_TIMEZONE: 'Europe/Lisbon', OPENAI_API_KEY: '' },
  });
  return { vault, llm, dir };
}

const facts = (value: unknown): Reply => ({ text: JSON.stringify(value) });
const userPrompt = (request: ChatRequest): string => request.body.messages.find((m) => m.role === 'user')?.content ?? '';

async function log(vault: Vault, date: string): Promise<string> {
  return readFile(path.join(vault.root, 'logs', `${date}.md`), 'utf8').catch(() => '');
}

describe('LLM extraction', () => {
  // Tuesday 2026-06-09 14:32 in Lisbon; the second day's turn is on Wednesday 2026-06-10 at 09:15.
  const transcript = [
    entry('user', 'Can you fix the failing test in src/app.ts?', '2026-06-09T13:30:00Z'),
    entry('assistant', 'Fixed. Anything else? How was your weekend?', '2026-06-09T13:31:00Z'),
    entry('user', 'Great! I went hiking in Sintra yesterday with my sister Ana. I prefer dark roast coffee, by the way.', '2026-06-09T13:32:00Z'),
    entry('assistant', 'Sounds lovely.', '2026-06-09T13:32:30Z'),
    entry('user', 'Thanks, run the linter please', '2026-06-09T13:33:00Z'),
    entry('user', 'We decided to move the blog to Hugo next week.', '2026-06-10T08:15:00Z'),
  ].join('\n');

  it('appends typed facts on the date of the turn they came from, under a header naming the session', async () => {
    const { vault, llm, dir } = await setup(
      [
        (request) => {
          const prompt = userPrompt(request);
          // Only the candidate turns go out, each with its date; the chatter stays home.
          expect(prompt).toContain('[turn 2 · Tuesday 2026-06-09 14:32]');
          expect(prompt).toContain('[turn 5 · Wednesday 2026-06-10 09:15]');
          expect(prompt).toContain('(the assistant had just said: Fixed. Anything else? How was your weekend?)');
          expect(prompt).not.toContain('failing test');
          expect(prompt).not.toContain('run the linter');
          expect(request.body.model).toBe('fake-model');
          return facts({
            facts: [
              { category: 'moment', text: 'Went hiking in Sintra with sister Ana on 2026-06-08', tags: ['hiking', 'family'], confidence: 0.9, date: '2026-06-08', turn: 2 },
              { category: 'preference', text: 'Prefers dark roast coffee', tags: ['coffee'], confidence: 0.95, turn: 2 },
              { category: 'relationship', text: "sister's name:: Ana", tags: 'family', confidence: '0.8', turn: 2 },
              // relative dates the model left in are resolved against the turn's own time
              { category: 'decision', text: 'Decided to move the blog to Hugo next week', tags: ['blog'], confidence: 0.85, turn: 5 },
              { category: 'fact', text: 'Probably likes mountains', confidence: 0.3, turn: 2 },
              { category: 'fact', confidence: 0.9 },
              { category: 'mood', text: 'The user enjoys the outdoors', confidence: 0.7, turn: 2 },
            ],
          });
        },
      ],
      { 'session.jsonl': transcript },
    );
    const result = await ingestFiles(vault, [path.join(dir, 'session.jsonl')]);
    expect(llm.requests).toHaveLength(1);
    expect(result).toMatchObject({ mode: 'llm', files: 1, turns: 6, scanned: 4, candidates: 2, facts: 5, skipped_lines: 0, llm_calls: 1, low_confidence: 1, invalid_replies: 0, duplicates: 0 });
    expect(result.tokens).toBeGreaterThan(0);

    const day1 = parseLog(await log(vault, '2026-06-09'), '2026-06-09');
    expect(day1.skipped).toEqual([]);
    expect(day1.facts.map((f) => [f.time, f.source, f.category, f.text, f.tags])).toEqual([
      ['14:32', 'claude-code/3f9a1c2b', 'moment', 'Went hiking in Sintra with sister Ana on 2026-06-08', ['hiking', 'family']],
      ['14:32', 'claude-code/3f9a1c2b', 'preference', 'Prefers dark roast coffee', ['coffee']],
      ['14:32', 'claude-code/3f9a1c2b', 'relationship', "sister's name:: Ana", ['family']],
      ['14:32', 'claude-code/3f9a1c2b', 'fact', 'Enjoys the outdoors', []],
    ]);
    const day2 = parseLog(await log(vault, '2026-06-10'), '2026-06-10');
    expect(day2.facts.map((f) => [f.time, f.category, f.text])).toEqual([['09:15', 'decision', 'Decided to move the blog to Hugo the week of 2026-06-15']]);
  });

  it('does not append again what it already extracted from the same transcript', async () => {
    const reply = facts({ facts: [{ category: 'preference', text: 'Prefers dark roast coffee', confidence: 0.9, turn: 2 }] });
    const { vault, dir } = await setup([reply, reply], { 'session.jsonl': transcript });
    const file = path.join(dir, 'session.jsonl');
    expect((await ingestFiles(vault, [file])).facts).toBe(1);
    const again = await ingestFiles(vault, [file]);
    expect(again).toMatchObject({ facts: 0, duplicates: 1, llm_calls: 1 });
    expect((await log(vault, '2026-06-09')).match(/dark roast/g)).toHaveLength(1);
  });

  it('sends no request for a transcript with nothing worth remembering', async () => {
    const chatter = [
      entry('user', 'Can you fix the failing test in src/app.ts?', '2026-06-09T10:00:00Z'),
      entry('assistant', 'Sure, the assertion was off by one.', '2026-06-09T10:01:00Z'),
      entry('user', 'Thanks, that works. Now run the linter please', '2026-06-09T10:02:00Z'),
      entry('user', 'Why does this throw a TypeError?\n```ts\n// remember: my name is x\nconst x = undefined.y;\n```', '2026-06-09T10:03:00Z'),
      entry('user', 'ok', '2026-06-09T10:04:00Z'),
    ].join('\n');
    const { vault, llm, dir } = await setup([], { 'chatter.jsonl': chatter });
    const result = await ingestFiles(vault, [path.join(dir, 'chatter.jsonl')]);
    expect(llm.requests).toHaveLength(0);
    expect(result).toMatchObject({ turns: 5, scanned: 4, candidates: 0, facts: 0, llm_calls: 0 });
    expect(await log(vault, '2026-06-09')).toBe('');
  });

  it('reads the turns of a reply that is not valid JSON with the rules instead', async () => {
    const { vault, llm, dir } = await setup([{ text: 'Sure! Here are the facts: the user likes coffee {oops' }], { 'session.jsonl': transcript });
    const result = await ingestFiles(vault, [path.join(dir, 'session.jsonl')]);
    expect(llm.requests).toHaveLength(1);
    expect(result).toMatchObject({ invalid_replies: 1, llm_calls: 1 });
    const texts = parseLog(await log(vault, '2026-06-09'), '2026-06-09').facts.map((f) => f.text);
    expect(texts).toEqual(['Prefers dark roast coffee']);
    expect(parseLog(await log(vault, '2026-06-10'), '2026-06-10').facts.map((f) => f.text)).toEqual(['Decided (with others) to move the blog to Hugo the week of 2026-06-15']);
  });

  it('accepts a fenced reply or a bare array, and skips items that are not facts', async () => {
    const { vault, dir } = await setup(
      [{ text: '```json\n[{"category": "preference", "text": "Prefers dark roast coffee", "confidence": 95, "turn": 2}, "junk", {"text": 7}]\n```' }],
      { 'session.jsonl': transcript },
    );
    const result = await ingestFiles(vault, [path.join(dir, 'session.jsonl')]);
    expect(result).toMatchObject({ facts: 1, invalid_replies: 0 });
  });

  it('splits the candidates into calls of at most extract.max_turns_per_call turns', async () => {
    const many = Array.from({ length: 5 }, (_, i) => entry('user', `I like hobby number ${i + 1}`, `2026-06-09T1${i}:00:00Z`)).join('\n');
    const { vault, llm, dir } = await setup([facts({ facts: [] }), facts({ facts: [] }), facts({ facts: [] })], { 'many.jsonl': many });
    await writeTree(vault.root, { '.vaultkeeper/config.yaml': 'extract:\n  max_turns_per_call: 2\n' });
    const fresh = await openVault({ vault: vault.root, env: vault.ctx.env });
    const result = await ingestFiles(fresh, [path.join(dir, 'many.jsonl')]);
    expect(result.llm_calls).toBe(3);
    expect(llm.requests.map((r) => (userPrompt(r).match(/\[turn \d+/g) ?? []).length)).toEqual([2, 2, 1]);
  });

  it('dates turns without timestamps by the file\'s mtime', async () => {
    const { vault, dir } = await setup([facts({ facts: [{ category: 'fact', text: 'home city:: Porto', confidence: 1, turn: 0 }] })], {
      'chat.md': 'User: I live in Porto\nAssistant: Nice.\n',
    });
    const file = path.join(dir, 'chat.md');
    await utimes(file, new Date('2026-03-01T12:00:00Z'), new Date('2026-03-01T12:00:00Z'));
    const result = await ingestFiles(vault, [file]);
    expect(result.appended.map((f) => [f.date, f.time, f.source, f.text])).toEqual([['2026-03-01', '12:00', 'ingest/chat.md', 'home city:: Porto']]);
  });

  it('falls back to the rules when the endpoint keeps failing (llm.fallback: offline), and says so', async () => {
    const { vault, llm, dir } = await setup([{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }], { 'session.jsonl': transcript });
    const result = await ingestFiles(vault, [path.join(dir, 'session.jsonl')]);
    expect(result).toMatchObject({ mode: 'llm', llm_calls: 0, facts: 2 });
    expect(result.fallback).toMatch(/^the LLM cannot be used \(.*HTTP 500.*\); rule-based extraction instead \(llm\.fallback: offline\)$/);
    const offline = await ingestFiles(vault, [path.join(dir, 'session.jsonl')], { offline: true });
    expect(offline).toMatchObject({ mode: 'rules', fallback: null, facts: 0, duplicates: 2 });
    // One call, tried llm.max_attempts (4) times; the rules need none.
    expect(llm.requests).toHaveLength(4);
  });

  it('fails with a typed error when the endpoint keeps failing and llm.fallback is wait, writing nothing', async () => {
    const { vault, dir } = await setup([{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }], { 'session.jsonl': transcript }, 'llm:\n  fallback: wait\n');
    const error = await ingestFiles(vault, [path.join(dir, 'session.jsonl')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultkeeperError);
    expect((error as VaultkeeperError).code).toBe('VK_LLM_REQUEST');
    expect((error as VaultkeeperError).message).toContain('HTTP 500');
    expect(await log(vault, '2026-06-09')).toBe('');
  });

  it('uses the rules with --offline, and an injected chat function in place of the endpoint', async () => {
    const { vault, llm, dir } = await setup([], { 'session.jsonl': transcript });
    const offline = await ingestFiles(vault, [path.join(dir, 'session.jsonl')], { offline: true });
    expect(offline).toMatchObject({ mode: 'rules', llm_calls: 0, facts: 2 });
    const seen: string[] = [];
    const injected = await ingestFiles(vault, [path.join(dir, 'session.jsonl')], {
      chat: async (request) => {
        seen.push(request.job);
        return { content: JSON.stringify({ facts: [{ category: 'skill', text: 'Hikes mountain trails', confidence: 0.9, turn: 2 }] }), tokens: 42 };
      },
    });
    expect(seen).toEqual(['extract']);
    expect(injected).toMatchObject({ mode: 'llm', llm_calls: 1, tokens: 42, facts: 1 });
    expect(llm.requests).toHaveLength(0);
  });
});
