/**
 * The watcher hands its pass the files it saw change (watch.ts, reindex.ts `changed`): after a `remember`, a person's
 * edit of an old log and a saved page, the pass stats only those and the change is searchable; after a folder is
 * added (an event it cannot account file by file) the next pass stats every file. Through the built CLI's `watch`,
 * whose note says how many files each pass statted ("all" when it statted every one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFile, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const env = { ...process.env, LANCE_CPU_THREADS: '2', NO_COLOR: '1', VAULTKEEPER_VAULT: undefined };

interface Noted {
  file: string;
  statted: number;
}

async function vaultWithFacts(): Promise<string> {
  const root = path.join(await tempDir(), 'vault');
  await runJson(['init', root]);
  await writeTree(root, { '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
  const lines = [
    '{"text":"Prefers dark roast coffee","category":"preference","date":"2026-06-01"}',
    '{"text":"Plays the cello in the city orchestra","category":"skill","date":"2026-06-02"}',
    '{"text":"Moved to Porto in June","category":"moment","date":"2026-06-03"}',
  ].join('\n');
  await runJson(['--vault', root, 'remember', '--stdin'], { input: lines });
  await writeTree(root, { '2_Areas/Music.md': '---\ntitle: Music\n---\n# Music\n\nPlays in the city orchestra on Thursdays.\n' });
  return root;
}

/** The watcher's notes of passes: the file named (or "N changes") and how many files the pass statted. */
function passes(stderr: string): Noted[] {
  return [...stderr.matchAll(/indexed (\S+(?: changes)?) \(\d+ written, \d+ removed, (\d+|all) files statted/g)].map((m) => ({ file: m[1]!, statted: m[2] === 'all' ? Infinity : Number(m[2]) }));
}

describe('watch: a pass stats what changed', () => {
  it('after a remember, an edit of an old log and a saved page: only those; after a folder is added: every file', async () => {
    const root = await vaultWithFacts();
    const child: ChildProcess = spawn(process.execPath, [CLI, '--vault', root, 'watch', '--debounce', '50'], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const { openVault } = await import('../../src/vault/vault.js');
    const vault = await openVault({ vault: root });
    const found = async (query: string, file: string): Promise<boolean> => (await vault.search(query, { refresh: false, recordRecall: false })).some((r) => r.path === file);
    /** Waits for a pass after `from` passes that names `file`; its note. */
    const passFor = async (from: number, file: string): Promise<Noted> => {
      await waitFor(() => passes(stderr).slice(from).some((p) => p.file === file), () => stderr);
      return passes(stderr).slice(from).find((p) => p.file === file)!;
    };
    try {
      await waitFor(() => stderr.includes('watching'), () => stderr);

      // The first pass after the watch began: changes before it are unknown, so every file is statted.
      await runJson(['--vault', root, 'remember', 'Adopted a greyhound called Comet', '--date', '2026-06-03']);
      expect((await passFor(0, 'logs/2026-06-03.md')).statted).toBe(Infinity);
      await waitFor(() => found('greyhound Comet', 'logs/2026-06-03.md'), () => stderr);

      let from = passes(stderr).length;
      await runJson(['--vault', root, 'remember', 'Bought a kiln for the studio', '--date', '2026-06-03']);
      expect((await passFor(from, 'logs/2026-06-03.md')).statted).toBe(1);
      await waitFor(() => found('kiln studio', 'logs/2026-06-03.md'), () => stderr);

      // A person's edit of an old log, and of a page.
      from = passes(stderr).length;
      await appendFile(path.join(root, 'logs/2026-06-01.md'), '- [fact] Learns the tango on Fridays #dance\n');
      expect((await passFor(from, 'logs/2026-06-01.md')).statted).toBe(1);
      await waitFor(() => found('tango Fridays', 'logs/2026-06-01.md'), () => stderr);
      from = passes(stderr).length;
      await appendFile(path.join(root, '2_Areas/Music.md'), '\nRehearses Shostakovich in the spring.\n');
      expect((await passFor(from, '2_Areas/Music.md')).statted).toBe(1);
      await waitFor(() => found('Shostakovich', '2_Areas/Music.md'), () => stderr);

      // A folder moved in whole: its files' events are not vouched for, so the pass after stats every file.
      const outside = path.join(path.dirname(root), 'Travel');
      await mkdir(outside);
      await writeTree(outside, { 'Kyoto.md': '# Kyoto\n\nPlanning a trip to Kyoto in autumn.\n' });
      from = passes(stderr).length;
      await rename(outside, path.join(root, '3_Personal/Travel'));
      await waitFor(() => passes(stderr).slice(from).some((p) => p.statted === Infinity), () => stderr);
      await waitFor(() => found('Kyoto autumn', '3_Personal/Travel/Kyoto.md'), () => stderr);

      // And vouched for again after that full pass.
      from = passes(stderr).length;
      await appendFile(path.join(root, 'logs/2026-06-02.md'), '- [fact] Sings in a choir #music\n');
      expect((await passFor(from, 'logs/2026-06-02.md')).statted).toBe(1);
      await waitFor(() => found('choir', 'logs/2026-06-02.md'), () => stderr);
    } finally {
      await vault.close();
      child.kill('SIGINT');
      await new Promise((resolve) => child.on('close', resolve));
    }
  }, 120_000);
});

async function waitFor(check: () => boolean | Promise<boolean>, context: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting; watcher said:\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
