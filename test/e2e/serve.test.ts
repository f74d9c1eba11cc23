/**
 * `vaultkeeper serve` (docs/cli.md): the daemon's query socket alone, in the foreground. A search through
 * it prints the same JSON as in process; Ctrl-C (SIGINT) or SIGTERM stops it and removes the socket.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, runCli, runJson, type CliResult } from '../helpers/cli.js';
import { foldedWithin, unindexedRows } from '../helpers/flat-rows.js';
import { useTempDir } from '../helpers/tmp.js';
import { mkdir, writeFile } from 'node:fs/promises';

const tempDir = useTempDir();
const servers: ChildProcess[] = [];

afterEach(() => {
  for (const child of servers.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function vault(): Promise<string> {
  const root = path.join(await tempDir(), 'vault');
  await runJson(['init', root]);
  await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: none\nextract:\n  sessions: []\n');
  execFileSync('git', ['commit', '-qam', 'person: config'], { cwd: root });
  await runJson(['--vault', root, 'remember', 'Prefers dark roast coffee', '-t', 'coffee', '--date', '2026-06-01']);
  await runJson(['--vault', root, 'remember', 'Coffee with Ana every Friday', '--date', '2026-06-03']);
  return root;
}

/** Starts `serve` and resolves once it says it answers; its stderr so far comes along. */
async function serve(root: string): Promise<{ child: ChildProcess; exited: Promise<{ code: number | null; stderr: string }> }> {
  const child = spawn(process.execPath, [CLI, '--vault', root, 'serve'], { env: { ...process.env, VAULTKEEPER_VAULT: undefined, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(child);
  let stderr = '';
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('Ctrl-C stops')) resolve();
    });
    void exited.then(({ code }) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { child, exited };
}

const search = (root: string, env?: Record<string, string>, args: readonly string[] = ['coffee']): Promise<CliResult> =>
  runCli(['--vault', root, 'search', ...args, '--json', '--debug'], env === undefined ? {} : { env });

/** The served answer (asked again while a loaded machine makes it miss the CLI's 2 s wait) and the in-process one. */
async function bothWays(root: string, args: readonly string[]): Promise<{ served: CliResult; local: CliResult }> {
  let served = await search(root, undefined, args);
  for (let i = 0; i < 10 && !served.stderr.includes('answered by the daemon'); i++) served = await search(root, undefined, args);
  expect(served.stderr).toContain('answered by the daemon');
  const local = await search(root, { VAULTKEEPER_NO_DAEMON: '1' }, args);
  expect(local.stderr).not.toContain('answered by the daemon');
  return { served, local };
}
const socket = (root: string): string => path.join(root, '.vaultkeeper/run/daemon.sock');
const exists = (file: string): Promise<boolean> => access(file).then(() => true, () => false);

describe('vaultkeeper serve', { timeout: 120_000 }, () => {
  it('answers search over its socket with the same JSON as in process, and SIGTERM removes the socket', async () => {
    const root = await vault();
    const { child, exited } = await serve(root);
    expect(await exists(socket(root))).toBe(true);

    // On a loaded machine an answer can miss the CLI's 2 s wait (it then searches in process): ask again.
    let served = await search(root);
    for (let i = 0; i < 10 && !served.stderr.includes('answered by the daemon'); i++) served = await search(root);
    expect(served.stderr).toContain('answered by the daemon');
    const local = await search(root, { VAULTKEEPER_NO_DAEMON: '1' });
    expect(local.stderr).not.toContain('answered by the daemon');
    expect(served.code).toBe(0);
    expect(JSON.parse(served.stdout).results.length).toBe(2);
    expect(served.stdout).toBe(local.stdout);

    // A daemon cannot start beside it: one process answers on the socket.
    const daemon = await runCli(['--vault', root, 'daemon', 'start']);
    expect(daemon.code).not.toBe(0);
    expect(daemon.stderr).toContain('running for this vault');

    child.kill('SIGTERM');
    const { code } = await exited;
    expect(code).toBe(0);
    expect(await exists(socket(root))).toBe(false);
    expect((await search(root)).stderr).toContain('no daemon socket');
  });

  it('answers filtered searches (--kind, --since, --archived, -k) with the same JSON as in process', async () => {
    const root = await vault();
    await writeFile(path.join(root, '2_Areas/Coffee.md'), '# Coffee\n\n## Roast\n\n- Dark roast coffee from the corner shop\n- A coffee grinder on the wish list\n');
    await mkdir(path.join(root, '5_Archives/2_Areas'), { recursive: true });
    await writeFile(path.join(root, '5_Archives/2_Areas/Old coffee.md'), '# Old coffee\n\n## Shops\n\n- The coffee cart by the station, closed since May\n');
    execFileSync('git', ['add', '-A'], { cwd: root });
    execFileSync('git', ['commit', '-qm', 'person: coffee pages'], { cwd: root });
    const { child, exited } = await serve(root);

    const paths = (out: CliResult): string[] => (JSON.parse(out.stdout) as { results: Array<{ path: string }> }).results.map((r) => r.path);
    for (const args of [
      ['coffee'],
      ['coffee', '--archived'],
      ['coffee', '--kind', 'page', '--archived'],
      ['coffee', '--kind', 'fact'],
      ['coffee', '--since', '2026-06-02'],
      ['coffee', '--archived', '-k', '2'],
    ]) {
      const { served, local } = await bothWays(root, args);
      expect(served.code, args.join(' ')).toBe(0);
      expect(served.stdout, args.join(' ')).toBe(local.stdout);
    }
    // The filters did filter: the archived page only with --archived, pages only with --kind page.
    const plain = (await bothWays(root, ['coffee'])).served;
    expect(paths(plain)).toEqual(expect.arrayContaining(['2_Areas/Coffee.md', 'logs/2026-06-01.md', 'logs/2026-06-03.md']));
    expect(paths(plain)).not.toContain('5_Archives/2_Areas/Old coffee.md');
    const archivedPages = (await bothWays(root, ['coffee', '--kind', 'page', '--archived'])).served;
    expect(new Set(paths(archivedPages))).toEqual(new Set(['2_Areas/Coffee.md', '5_Archives/2_Areas/Old coffee.md']));

    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  });

  it('stops on Ctrl-C (SIGINT), removing its socket, and a fact appended meanwhile was searchable through it', async () => {
    const root = await vault();
    const { child, exited } = await serve(root);
    await runJson(['--vault', root, 'remember', 'Bought a coffee grinder', '--date', '2026-06-04']);
    // The watcher indexes the append; the answer waits for pending changes to be indexed.
    const deadline = Date.now() + 30_000;
    let served: CliResult;
    do {
      served = await search(root);
    } while (!(served.stdout.includes('coffee grinder') && served.stderr.includes('answered by the daemon')) && Date.now() < deadline);
    expect(served.stderr).toContain('answered by the daemon');
    expect(served.stdout).toContain('Bought a coffee grinder');
    // Once quiet, the rows the watcher wrote are folded into the full-text index (searched flat until then).
    expect(await foldedWithin(root, 30_000)).toBe(0);

    child.kill('SIGINT');
    expect((await exited).code).toBe(0);
    expect(await exists(socket(root))).toBe(false);
  });

  it('folds rows the CLI wrote into the full-text index once quiet after it starts, with nothing changed meanwhile', async () => {
    const root = await vault();
    // A table of some rows, then one more, indexed by a search: its row is searched flat (reindex.ts: FOLD_IN_ROWS).
    const facts = Array.from({ length: 10 }, (_, i) => `- [fact] Tasted coffee number ${i} ^f-a${String(i).padStart(9, '0')}`);
    await writeFile(path.join(root, 'logs/2026-05-01.md'), `# 2026-05-01\n\n## 09:00 · cli\n${facts.join('\n')}\n`);
    await runJson(['--vault', root, 'reindex', '--clear']);
    await runJson(['--vault', root, 'remember', 'Bought a coffee grinder', '--date', '2026-06-04']);
    await runJson(['--vault', root, 'search', 'grinder'], { env: { VAULTKEEPER_NO_DAEMON: '1' } });
    expect(await unindexedRows(root)).toBeGreaterThan(0);
    const { child, exited } = await serve(root);
    expect(await foldedWithin(root, 30_000)).toBe(0);
    const { served, local } = await bothWays(root, ['coffee']);
    expect(served.stdout).toBe(local.stdout);

    child.kill('SIGINT');
    expect((await exited).code).toBe(0);
    expect(await exists(socket(root))).toBe(false);
  });
});
