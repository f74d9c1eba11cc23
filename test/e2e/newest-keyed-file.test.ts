/**
 * The keyed subjects' newest rows the index pass keeps beside the manifest (newest-keyed-file.ts): after every kind of
 * change they answer as the table does (the LanceDB path: newestBySubject over the subjects' rows, current and all),
 * and files left from an older table state (a crash, a copy put back) are never used: a search still ranks the
 * newest value first. Through the built CLI, on real LanceDB; the table is read with the store.
 */
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEWEST_KEYED_DIR, NewestKeyedFiles } from '../../src/indexer/newest-keyed-file.js';
import { IndexStore } from '../../src/indexer/store.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const env = { LANCE_CPU_THREADS: '2' };

async function keyedVault(): Promise<{ root: string; ids: Record<string, string> }> {
  const root = path.join(await tempDir(), 'vault');
  await runJson(['init', root], { env });
  await writeTree(root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
  const ids: Record<string, string> = {};
  const facts: Array<[string, string, string]> = [
    ['lisbon', 'home city:: Lisbon', '2026-01-02'],
    ['porto', 'home city:: Porto', '2026-01-05'],
    ['berlin', 'home city:: Berlin', '2026-01-09'],
    ['light', 'coffee roast:: light', '2026-01-03'],
    ['dark', 'coffee roast:: dark', '2026-01-05'],
    ['cello', 'Plays the cello on Sundays', '2026-01-05'],
  ];
  for (const [name, text, date] of facts) {
    const out = await runJson<{ facts: Array<{ id: string }> }>(['--vault', root, 'remember', text, '--date', date], { env });
    ids[name] = out.facts[0]!.id;
  }
  await runJson(['--vault', root, 'reindex'], { env });
  return { root, ids };
}

/** The table's state, and what the files and the LanceDB path (a store without the files) say of every keyed subject, in both scopes. */
async function answers(root: string): Promise<{ state: string | null; files: unknown; table: unknown; subjects: string[] }> {
  const store = await IndexStore.open(path.join(root, '.vaultkeeper/index'), null);
  try {
    const state = await store.state();
    const subjects = [...new Set((await store.subjectRows(null)).map((row) => row.subject))].sort();
    const files = new NewestKeyedFiles(root, '.vaultkeeper/index');
    const asList = (m: Map<string, unknown> | null): unknown => (m === null ? null : subjects.map((s) => [s, m.get(s) ?? null]));
    const table = [];
    for (const archived of [false, true]) table.push(asList(await store.newestKeyed(subjects, { where: null, archived }, state)));
    return {
      state,
      subjects,
      files: [false, true].map((archived) => asList(state === null ? null : files.newest(state, archived, subjects))),
      table,
    };
  } finally {
    store.close();
  }
}

async function expectFilesAnswerAsTable(root: string): Promise<void> {
  const { files, table, subjects } = await answers(root);
  expect(subjects.length).toBeGreaterThan(0);
  expect(files).toEqual(table);
}

async function firstText(root: string, query: string): Promise<string> {
  const found = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', query], { env });
  return found.results[0]?.text ?? '';
}

describe('the keyed files beside the manifest', () => {
  it('answer as the table does through adds, a forget, a log edit, a dream and a rebuild', async () => {
    const { root, ids } = await keyedVault();
    await expectFilesAnswerAsTable(root);
    expect(await firstText(root, 'home city')).toBe('home city:: Berlin');

    // The newest row of a subject forgotten: the files must name the one before it, read again from the table.
    await runJson(['--vault', root, 'forget', ids.berlin!], { env });
    await expectFilesAnswerAsTable(root);
    const afterForget = await answers(root);
    expect(JSON.stringify(afterForget.files)).toContain(`#${ids.porto}`);
    expect(JSON.stringify(afterForget.files)).not.toContain(`#${ids.berlin}`);
    expect(await firstText(root, 'home city')).toBe('home city:: Porto');

    // A person removes the newest coffee line from its log by hand.
    const log = path.join(root, 'logs/2026-01-05.md');
    const text = await readFile(log, 'utf8');
    await writeFile(log, text.split('\n').filter((line) => !line.includes('coffee roast:: dark')).join('\n'));
    await runJson(['--vault', root, 'reindex'], { env });
    await expectFilesAnswerAsTable(root);
    expect(JSON.stringify((await answers(root)).files)).toContain(`#${ids.light}`);

    // A new newest value added by a pass that folds it in (the search's pass).
    await runJson(['--vault', root, 'remember', 'home city:: Madrid', '--date', '2026-01-20'], { env });
    expect(await firstText(root, 'home city')).toBe('home city:: Madrid');
    await expectFilesAnswerAsTable(root);

    // The dream consolidates the old logs: their facts leave the index as facts (the watermark), pages take them.
    const dream = await runJson<{ status: string }>(['--vault', root, 'dream', '--force', '--offline'], { env });
    expect(dream.status).toBe('ok');
    await runJson(['--vault', root, 'reindex'], { env });
    const dreamt = await answers(root);
    expect(dreamt.files).toEqual(dreamt.table);

    await runJson(['--vault', root, 'reindex', '--clear'], { env });
    const rebuilt = await answers(root);
    expect(rebuilt.files).toEqual(rebuilt.table);
    expect(rebuilt.files).toEqual(dreamt.files);
  }, 240_000);

  it('left by a pass killed after the table was written: not used, and the next pass rewrites them', async () => {
    const { root } = await keyedVault();
    const before = await answers(root);
    await writeTree(root, { 'logs/2026-01-30.md': '# 2026-01-30\n\n## 09:00 · test\n- [fact] home city:: Oslo\n' });
    const killed = await runCli(['--vault', root, 'reindex'], { env: { ...env, VAULTKEEPER_FAILPOINT: 'reindex:before-newest-keyed' } });
    expect(killed.code, killed.stderr).toBe(-1);
    const stale = await answers(root);
    expect(stale.state).not.toBe(before.state);
    // The files still describe the table before the pass: the head's state is not the table's, so they say nothing.
    expect(stale.files).toEqual([null, null]);
    expect(await firstText(root, 'home city')).toBe('home city:: Oslo');
    await expectFilesAnswerAsTable(root);
  }, 120_000);

  it('put back from an older table state are not used: the newest value still ranks first', async () => {
    const { root } = await keyedVault();
    const saved = path.join(await tempDir(), 'keyed-saved');
    await cp(path.join(root, NEWEST_KEYED_DIR), saved, { recursive: true });
    await runJson(['--vault', root, 'remember', 'home city:: Oslo', '--date', '2026-01-30'], { env });
    await runJson(['--vault', root, 'reindex'], { env });
    await rm(path.join(root, NEWEST_KEYED_DIR), { recursive: true });
    await cp(saved, path.join(root, NEWEST_KEYED_DIR), { recursive: true });
    // The old files name Berlin as the newest home city; the table's newest is Oslo.
    expect((await answers(root)).files).toEqual([null, null]);
    expect(await firstText(root, 'home city')).toBe('home city:: Oslo');
    // The next pass that writes the table brings them back to its state.
    await runJson(['--vault', root, 'remember', 'coffee roast:: medium', '--date', '2026-01-31'], { env });
    await runJson(['--vault', root, 'reindex'], { env });
    await expectFilesAnswerAsTable(root);
  }, 120_000);
});
