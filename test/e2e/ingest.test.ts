/**
 * `vaultkeeper ingest` through the built CLI (build with `npx tsc -p tsconfig.build.json` first): the
 * three transcript formats into the logs, offline and through a scripted LLM server, one JSON document
 * with --json, every append committed, re-ingesting appends nothing, bad input exits with one line.
 */
import { utimes } from 'node:fs/promises';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLog } from '../../src/logs/factlog.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useFakeLlm } from '../helpers/fake-llm.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { commitSubjects, expectOneLineError, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const SESSION = '3f9a1c2b-7d4e-4a61-9f0e-2b8c5d6e7f80';
const claude = (type: 'user' | 'assistant', text: string, at: string): string =>
  JSON.stringify({ type, sessionId: SESSION, cwd: '/home/rui/blog', timestamp: at, message: { role: type, content: type === 'user' ? text : [{ type: 'text', text }] } });

const FILES = {
  'in/session.jsonl': [
    claude('user', 'Fix the failing test please', '2026-06-09T13:30:00Z'),
    claude('assistant', 'Done.', '2026-06-09T13:31:00Z'),
    claude('user', 'Great. I prefer dark roast coffee, and my wife is Ana.', '2026-06-09T13:32:00Z'),
    '{"type": "user", "message": ',
    claude('user', 'I decided to move the blog to Hugo', '2026-06-10T08:15:00Z'),
  ].join('\n'),
  'in/chat.json': JSON.stringify({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'I live in Lisbon', timestamp: '2026-06-08T09:00:00Z' }, { role: 'assistant', content: 'Nice city.' }] }),
  'in/notes.md': '## User\n\nCall me Rui.\n\n## Assistant\n\nSure.\n',
};

interface IngestJson {
  mode: string;
  files: number;
  turns: number;
  scanned: number;
  candidates: number;
  facts: number;
  skipped_lines: number;
  llm_calls: number;
  duplicates: number;
  transcripts: Array<{ file: string; source: string; format: string; facts: number; dates: string[] }>;
  appended: Array<{ id: string; date: string; path: string; line: number; category: string; text: string; source: string }>;
}

async function setup(): Promise<{ dir: string; vault: string; env: Record<string, string> }> {
  const dir = await tempDir();
  const vault = await initVault(dir);
  await writeTree(dir, FILES);
  await utimes(path.join(dir, 'in/notes.md'), new Date('2026-06-07T20:00:00Z'), new Date('2026-06-07T20:00:00Z'));
  return { dir, vault, env: { VAULTKEEPER_TIMEZONE: 'UTC' } };
}

describe('vaultkeeper ingest', () => {
  it('ingests the three formats offline, on the dates they happened, and commits', async () => {
    const { dir, vault, env } = await setup();
    const files = ['in/session.jsonl', 'in/chat.json', 'in/notes.md'].map((f) => path.join(dir, f));
    const result = await runJson<IngestJson>(['ingest', ...files, '--offline', '--vault', vault], { env });
    expect(result).toMatchObject({ mode: 'rules', files: 3, turns: 8, scanned: 5, candidates: 4, facts: 5, skipped_lines: 1, llm_calls: 0, duplicates: 0 });
    expect(result.transcripts.map((t) => [t.source, t.format, t.facts, t.dates])).toEqual([
      ['claude-code/3f9a1c2b', 'claude-code', 3, ['2026-06-09', '2026-06-10']],
      ['ingest/chat.json', 'openai', 1, ['2026-06-08']],
      ['ingest/notes.md', 'text', 1, ['2026-06-07']],
    ]);
    expect(result.appended.map((f) => [f.date, f.category, f.text])).toEqual([
      ['2026-06-09', 'preference', 'Prefers dark roast coffee'],
      ['2026-06-09', 'relationship', 'wife:: Ana'],
      ['2026-06-10', 'decision', 'Decided to move the blog to Hugo'],
      ['2026-06-08', 'fact', 'home city:: Lisbon'],
      ['2026-06-07', 'preference', 'preferred name:: Rui'],
    ]);
    const log = await readFile(path.join(vault, 'logs/2026-06-09.md'), 'utf8');
    expect(log).toContain('## 13:32 · claude-code/3f9a1c2b\n- [preference] Prefers dark roast coffee ^f-');
    const parsed = parseLog(log, '2026-06-09');
    expect(parsed.facts.map((f) => f.id)).toEqual(result.appended.slice(0, 2).map((f) => f.id));
    expect(await gitStatus(vault)).toEqual([]);
    expect((await commitSubjects(vault)).filter((s) => s.startsWith('remember:'))).toHaveLength(4);

    const again = await runJson<IngestJson>(['ingest', ...files, '--offline', '--vault', vault], { env });
    expect(again).toMatchObject({ facts: 0, duplicates: 5, appended: [] });
  });

  it('extracts through the configured LLM, without a request for chatter', async () => {
    const { dir, vault, env } = await setup();
    const llm = await startLlm([{ text: JSON.stringify({ facts: [{ category: 'preference', text: 'Prefers dark roast coffee', tags: ['coffee'], confidence: 0.9, turn: 2 }] }) }]);
    await writeTree(dir, { 'in/chatter.jsonl': [claude('user', 'run the tests', '2026-06-09T10:00:00Z'), claude('user', 'thanks', '2026-06-09T10:01:00Z')].join('\n') });
    const llmEnv = { ...env, VAULTKEEPER_LLM_BASE_URL: llm.baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model', OPENAI_API_KEY: '' };
    const chatter = await runJson<IngestJson>(['ingest', path.join(dir, 'in/chatter.jsonl'), '--vault', vault], { env: llmEnv });
    expect(chatter).toMatchObject({ mode: 'llm', candidates: 0, llm_calls: 0, facts: 0 });
    expect(llm.requests).toHaveLength(0);
    const result = await runJson<IngestJson>(['ingest', path.join(dir, 'in/session.jsonl'), '--vault', vault], { env: llmEnv });
    expect(result).toMatchObject({ mode: 'llm', llm_calls: 1, facts: 1 });
    expect(llm.requests).toHaveLength(1);
    expect(result.appended[0]).toMatchObject({ date: '2026-06-09', text: 'Prefers dark roast coffee', source: 'claude-code/3f9a1c2b' });
  });

  it('prints a summary without --json', async () => {
    const { dir, vault, env } = await setup();
    const result = await runCli(['ingest', path.join(dir, 'in/notes.md'), '--offline', '--vault', vault], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ingested 1 file: 2 turns, 1 candidate turn, 1 new fact by the offline rules\nf-[a-z0-9]{10}\tlogs\/2026-06-07\.md:\d+\t\[preference\] preferred name:: Rui\n$/);
  });

  it('exits 2 with one line for a missing file or no file, and 1 for an unreachable LLM with llm.fallback: wait', async () => {
    const { dir, vault, env } = await setup();
    expectOneLineError(await runCli(['ingest', path.join(dir, 'nope.jsonl'), '--vault', vault], { env }), 2, /no such file/);
    expectOneLineError(await runCli(['ingest', '--vault', vault], { env }), 2);
    const config = path.join(vault, '.vaultkeeper/config.yaml');
    await writeFile(config, (await readFile(config, 'utf8')).replace(/^llm:\n/m, 'llm:\n  fallback: wait\n'));
    const down = { ...env, VAULTKEEPER_LLM_BASE_URL: 'http://127.0.0.1:9/v1', VAULTKEEPER_LLM_MODEL: 'm' };
    expectOneLineError(await runCli(['ingest', path.join(dir, 'in/session.jsonl'), '--vault', vault], { env: down }), 1, /--offline/);
  });

  it('falls back to the rule-based extractor when the LLM is down (llm.fallback: offline), and says so', async () => {
    const { dir, vault, env } = await setup();
    const llm = await startLlm([], { fallback: { status: 500, message: 'the model is down' } });
    const config = path.join(vault, '.vaultkeeper/config.yaml');
    await writeFile(config, (await readFile(config, 'utf8')).replace(/^llm:\n/m, 'llm:\n  max_attempts: 2\n'));
    const down = { ...env, VAULTKEEPER_LLM_BASE_URL: llm.baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model', OPENAI_API_KEY: '' };
    const files = ['in/session.jsonl', 'in/chat.json'].map((f) => path.join(dir, f));
    const result = await runJson<IngestJson & { fallback: string | null }>(['ingest', ...files, '--vault', vault], { env: down });
    // The rules' facts, as offline; the LLM was asked once (llm.max_attempts tries), not once per transcript.
    expect(result).toMatchObject({ mode: 'llm', llm_calls: 0, facts: 4, fallback: expect.stringMatching(/^the LLM cannot be used \(.*HTTP 500.*\); rule-based extraction instead \(llm\.fallback: offline\)$/) });
    expect(result.appended.map((f) => f.text)).toEqual(['Prefers dark roast coffee', 'wife:: Ana', 'Decided to move the blog to Hugo', 'home city:: Lisbon']);
    expect(llm.requests).toHaveLength(2);
    // Every append committed (the config edit above is the test's own).
    expect(await gitStatus(vault)).toEqual([' M .vaultkeeper/config.yaml']);

    // Without --json the summary names both, and a note on stderr says why.
    await writeTree(dir, { 'in/more.md': '## User\n\nI prefer green tea.\n' });
    const text = await runCli(['ingest', path.join(dir, 'in/more.md'), '--vault', vault], { env: down });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/by the LLM \(0 calls\) and the offline rules\n/);
    expect(text.stderr).toMatch(/the LLM cannot be used .*rule-based extraction instead/);
  });
});
