/**
 * `vaultkeeper ingest` of every agent's transcript fixture through the built CLI: each read by its own
 * format (whatever the file is called), its facts on the days the turns were said; a named file in no
 * known format exits 1 with one line and appends nothing; in a folder such a file is left out and named.
 */
import { copyFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { commitSubjects, expectOneLineError, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const FIXTURES = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));

interface IngestJson {
  files: number;
  turns: number;
  facts: number;
  unknown: string[];
  transcripts: Array<{ file: string; source: string; format: string; turns: number; facts: number; dates: string[] }>;
}

const EXPECTED: Record<string, { format: string; turns: number; source: RegExp; dates: string[] }> = {
  'claude-code.jsonl': { format: 'claude-code', turns: 3, source: /^claude-code\/3f9a1c2b$/, dates: ['2026-06-09', '2026-06-10'] },
  'codex-rollout.jsonl': { format: 'codex', turns: 3, source: /^codex\/0199a1b2$/, dates: ['2026-06-11', '2026-06-12'] },
  'gemini-session.json': { format: 'gemini', turns: 3, source: /^gemini\/92f625c6$/, dates: ['2026-06-13', '2026-06-14'] },
  'openclaw-session.jsonl': { format: 'openclaw', turns: 3, source: /^openclaw\/08ef1c2d$/, dates: ['2026-06-15', '2026-06-16'] },
  'cursor-export.md': { format: 'cursor-markdown', turns: 3, source: /^ingest\//, dates: ['2026-06-17'] },
  'cursor-state.vscdb': { format: 'cursor', turns: 7, source: /^cursor\//, dates: ['2026-05-28', '2026-06-09', '2026-06-22', '2026-06-23'] },
  'openai-messages.json': { format: 'openai', turns: 3, source: /^ingest\//, dates: ['2026-06-20', '2026-06-21'] },
};

describe('vaultkeeper ingest, every agent', () => {
  it('reads each fixture by its format, on the dates its turns were said', async () => {
    const dir = await tempDir();
    const vault = await initVault(dir);
    const env = { VAULTKEEPER_TIMEZONE: 'UTC' };
    for (const [name, want] of Object.entries(EXPECTED)) {
      // The name says nothing: the content decides.
      const file = path.join(dir, `transcript-${want.format}.data`);
      await copyFile(path.join(FIXTURES, name), file);
      const result = await runJson<IngestJson>(['--vault', vault, 'ingest', '--offline', file], { env });
      const [report] = result.transcripts;
      expect(report?.format, name).toBe(want.format);
      expect(report?.turns, name).toBe(want.turns);
      expect(report?.source, name).toMatch(want.source);
      expect(report?.facts, name).toBeGreaterThan(0);
      for (const date of report!.dates) expect(want.dates, `${name}: ${date}`).toContain(date);
    }
    expect((await commitSubjects(vault)).length).toBeGreaterThan(Object.keys(EXPECTED).length);
  });

  it('exits 1 with one line for a named file in no known format, and appends nothing', async () => {
    const dir = await tempDir();
    const vault = await initVault(dir);
    const before = await commitSubjects(vault);
    for (const name of ['unknown.txt', 'unknown.json']) {
      const result = await runCli(['--vault', vault, 'ingest', '--offline', path.join(FIXTURES, 'claude-code.jsonl'), path.join(FIXTURES, name)]);
      expectOneLineError(result, 1, new RegExp(`${name.replace('.', '\\.')} is in no transcript format vaultkeeper reads; nothing was ingested`));
    }
    expect(await commitSubjects(vault)).toEqual(before);
    expect((await readdir(path.join(vault, 'logs'))).filter((f) => f.endsWith('.md'))).toEqual([]);
  });

  it('leaves out, and names, a file of a folder that is in no format', async () => {
    const dir = await tempDir();
    const vault = await initVault(dir);
    const folder = path.join(dir, 'in');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(folder);
    await copyFile(path.join(FIXTURES, 'aider.chat.history.md'), path.join(folder, '.aider.chat.history.md'));
    await copyFile(path.join(FIXTURES, 'continue-session.json'), path.join(folder, 'continue.json'));
    await copyFile(path.join(FIXTURES, 'unknown.txt'), path.join(folder, 'README.txt'));
    const result = await runJson<IngestJson>(['--vault', vault, 'ingest', '--offline', folder], { env: { VAULTKEEPER_TIMEZONE: 'UTC' } });
    expect(result.transcripts.map((t) => t.format).sort()).toEqual(['aider', 'continue']);
    expect(result.unknown).toEqual([path.join(folder, 'README.txt')]);
    const human = await runCli(['--vault', vault, 'ingest', '--offline', folder]);
    expect(human.code).toBe(0);
    expect(human.stderr).toMatch(/1 file in the folders given is in no transcript format and was left out: .*README\.txt/);
  });
});
