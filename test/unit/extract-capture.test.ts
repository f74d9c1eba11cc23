/**
 * Capture is opt-in (DESIGN §9): with transcripts of two projects in a temp HOME, the session watcher
 * reads nothing before `capture add`, one project after; an agent whose sessions name their folder is
 * narrowed by it; a vault that relied on the old default gets one notice and reads nothing more.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addCapture, CAPTURE_FILE, EXTRACT_STATE_FILE, readCaptureState, removeCapture } from '../../src/extract/capture.js';
import { scanSessions } from '../../src/extract/sessions.js';
import { listLogDates, readLog } from '../../src/logs/factlog.js';
import { initVault } from '../../src/vault/init.js';
import { openVault } from '../../src/vault/vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const NOW = new Date('2026-06-09T18:00:00Z');

const claude = (session: string, cwd: string, text: string): string =>
  `${JSON.stringify({ type: 'user', sessionId: session, cwd, uuid: 'u1', timestamp: '2026-06-09T10:00:00Z', message: { role: 'user', content: text } })}\n`;
const codex = (id: string, cwd: string, text: string): string =>
  [
    { timestamp: '2026-06-09T10:00:00Z', type: 'session_meta', payload: { id, cwd, timestamp: '2026-06-09T10:00:00Z' } },
    { timestamp: '2026-06-09T10:01:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n';

async function fixture(): Promise<{ root: string; home: string; env: NodeJS.ProcessEnv }> {
  const dir = await tempDir();
  const root = path.join(dir, 'vault');
  const home = path.join(dir, 'home');
  await initVault(root);
  await writeTree(root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nextract:\n  idle_minutes: 10\n' });
  await writeTree(home, {
    '.claude/projects/-home-rui-blog/aaaaaaaa-0000-4000-8000-000000000001.jsonl': claude('aaaaaaaa-0000-4000-8000-000000000001', '/home/rui/blog', 'I prefer dark roast coffee'),
    '.claude/projects/-home-rui-bank/bbbbbbbb-0000-4000-8000-000000000002.jsonl': claude('bbbbbbbb-0000-4000-8000-000000000002', '/home/rui/bank', 'I prefer the blue debit card'),
    '.codex/sessions/2026/06/09/rollout-1.jsonl': codex('cccccccc-1', '/home/rui/api', 'I prefer tabs in the API code'),
    '.codex/sessions/2026/06/09/rollout-2.jsonl': codex('dddddddd-2', '/home/rui/private', 'I prefer my diary app'),
  });
  // Every session ended long before NOW.
  const { utimes } = await import('node:fs/promises');
  const old = new Date('2026-06-09T11:00:00Z');
  for (const rel of ['.claude/projects/-home-rui-blog/aaaaaaaa-0000-4000-8000-000000000001.jsonl', '.claude/projects/-home-rui-bank/bbbbbbbb-0000-4000-8000-000000000002.jsonl', '.codex/sessions/2026/06/09/rollout-1.jsonl', '.codex/sessions/2026/06/09/rollout-2.jsonl']) {
    await utimes(path.join(home, rel), old, old);
  }
  return { root, home, env: { ...process.env, HOME: home, VAULTKEEPER_TIMEZONE: 'UTC' } };
}

async function factTexts(root: string): Promise<string[]> {
  const texts: string[] = [];
  for (const date of await listLogDates(root)) for (const fact of (await readLog(root, date)).facts) texts.push(fact.text);
  return texts.sort();
}

async function stateFiles(root: string): Promise<string[]> {
  try {
    return Object.keys((JSON.parse(await readFile(path.join(root, EXTRACT_STATE_FILE), 'utf8')) as { files: Record<string, unknown> }).files);
  } catch {
    return [];
  }
}

describe('capture is opt-in', () => {
  it('reads nothing before capture add, then one project of Claude Code', async () => {
    const { root, home, env } = await fixture();
    const vault = await openVault({ vault: root, env });
    const before = await scanSessions(vault, { now: NOW, offline: true });
    expect(before).toMatchObject({ files: 0, facts: 0, notice: null });
    expect(await stateFiles(root)).toEqual([]);
    expect((await readCaptureState(root, [], home)).line).toMatch(/^capture: no agent transcripts are read; opt in with `vaultkeeper capture add claude-code/);

    await addCapture(root, 'claude-code', '/home/rui/blog');
    const after = await scanSessions(vault, { now: NOW, offline: true });
    expect(after.files).toBe(1);
    expect(await factTexts(root)).toEqual(['Prefers dark roast coffee']);
    expect((await stateFiles(root)).map((f) => path.basename(path.dirname(f)))).toEqual(['-home-rui-blog']);
    expect((await readCaptureState(root, [], home)).line).toBe('capture: transcripts of claude-code --project /home/rui/blog; change with `vaultkeeper capture add|remove`');

    await removeCapture(root, 'claude-code', null);
    expect(await scanSessions(vault, { now: NOW, offline: true })).toMatchObject({ files: 0, facts: 0 });
  });

  it('narrows an agent whose sessions name their folder (Codex) to the project', async () => {
    const { root, env } = await fixture();
    const vault = await openVault({ vault: root, env });
    await addCapture(root, 'codex', '/home/rui/api');
    const result = await scanSessions(vault, { now: NOW, offline: true });
    expect(result).toMatchObject({ files: 2, outside: 1 });
    expect(await factTexts(root)).toEqual(['Prefers tabs in the API code']);
    // Passed over, and not read again while nothing changes.
    expect((await scanSessions(vault, { now: NOW, offline: true })).outside).toBe(0);
  });

  it('gives a vault that relied on the old default one notice, and reads nothing until a capture is named', async () => {
    const { root, home, env } = await fixture();
    // What the watcher left behind when it read every Claude Code project unasked.
    const seen = path.join(home, '.claude/projects/-home-rui-blog/aaaaaaaa-0000-4000-8000-000000000001.jsonl');
    await writeTree(root, { [EXTRACT_STATE_FILE]: JSON.stringify({ version: 1, files: { [seen]: { offset: 0, size: 0, mtime_ms: 0, ino: 0, head: '', source: 'claude-code/aaaaaaaa', facts: 0, extracted_at: '2026-06-01T00:00:00Z' } } }) });
    const vault = await openVault({ vault: root, env });
    const first = await scanSessions(vault, { now: NOW, offline: true });
    expect(first.notice).toMatch(/^capture is now opt-in: .*vaultkeeper capture add claude-code/);
    expect(first.facts).toBe(0);
    const second = await scanSessions(vault, { now: NOW, offline: true });
    expect(second).toMatchObject({ notice: null, facts: 0, files: 0 });
    expect(await factTexts(root)).toEqual([]);
    const state = await readCaptureState(root, [], home);
    expect(state.legacy).not.toBeNull();
    expect(state.line).toMatch(/^capture: nothing \(capture is now opt-in/);
    await stat(path.join(root, CAPTURE_FILE));

    await addCapture(root, 'claude-code', null);
    expect((await readCaptureState(root, [], home)).legacy).toBeNull();
    await scanSessions(vault, { now: NOW, offline: true });
    expect(await factTexts(root)).toEqual(['Prefers dark roast coffee', 'Prefers the blue debit card']);
  });

  it('takes globs named in extract.sessions as named', async () => {
    const { root, home, env } = await fixture();
    await writeTree(root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nextract:\n  sessions: ["~/.claude/projects/-home-rui-bank/*.jsonl"]\n' });
    const vault = await openVault({ vault: root, env });
    await scanSessions(vault, { now: NOW, offline: true });
    expect(await factTexts(root)).toEqual(['Prefers the blue debit card']);
    expect((await readCaptureState(root, vault.ctx.config.extract.sessions, home)).line).toMatch(/extract\.sessions/);
  });
});
