/**
 * The symlink matrix (DESIGN §9: no program write leaves the vault's real path). Every program writer,
 * driven through the built CLI, meets a link where it writes: the file itself or its folder, as an
 * absolute or a relative link, pointing out of the vault. The program's own files are refused with one
 * line naming the link; a page linked in from outside is read but never rewritten, and the dream says so.
 * Either way the outside target keeps its bytes, its mtime and its listing.
 */
import { createHash } from 'node:crypto';
import { cp, lstat, mkdtemp, readFile, readdir, rename, rm, symlink, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordHealth } from '../../src/daemon/jobs/health.js';
import { writeDigests } from '../../src/daemon/jobs/digest.js';
import { openVault } from '../../src/vault/vault.js';
import { runCli, runJson, type CliResult } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const env = { VAULTKEEPER_TIMEZONE: 'UTC' };
const OLD = new Date('2001-02-03T04:05:06Z');

interface Case {
  writer: string;
  /** Vault-relative path replaced by a link to a copy of it outside the vault. */
  at: string;
  /** CLI arguments, or a daemon job run through the library (the daemon runs them on its clock). */
  args: string[] | ((root: string) => Promise<unknown>);
  /**
   * refused: exit 1 (or the job throws) with one line naming the link; read-only: the run succeeds and names
   * the page in `outside`; warned: exit 0 with a warning naming the link (a cache, only ever a copy).
   */
  outcome: 'refused' | 'read-only' | 'untouched' | 'warned';
  /** Commit the link first (git cannot snapshot files beyond a link that replaced a tracked folder). */
  commit?: boolean;
  env?: Record<string, string>;
}

const DIGEST_DATE = '2026-01-06';
/** The daemon's digest job for one day (its trigger is a daily time; the job itself is what writes). */
const digest = async (root: string): Promise<unknown> => writeDigests(await openVault({ vault: root, env: { ...process.env, ...env } }), DIGEST_DATE);
/** The daemon's health job: a line in .vaultkeeper/health.jsonl. */
const health = async (root: string): Promise<unknown> => recordHealth(await openVault({ vault: root, env: { ...process.env, ...env } }), new Date());

/** Runs a case's writer: the built CLI, or the job's library call with a thrown error as exit 1 and its message. */
async function runWriter(c: Case, root: string): Promise<CliResult> {
  if (typeof c.args !== 'function') return runCli(['--vault', root, ...c.args, ...(c.outcome === 'read-only' ? ['--json'] : [])], { env: { ...env, ...c.env } });
  try {
    await c.args(root);
    return { code: 0, stdout: '', stderr: '' };
  } catch (error) {
    return { code: 1, stdout: '', stderr: `vaultkeeper: ${(error as Error).message}\n` };
  }
}

const DREAM = ['dream', '--offline', '--force'];
const CASES: Case[] = [
  { writer: 'remember → log', at: 'logs/2026-01-06.md', args: ['remember', 'hi there', '--date', '2026-01-06'], outcome: 'refused' },
  { writer: 'remember → log', at: 'logs', args: ['remember', 'hi there', '--date', '2026-01-06'], outcome: 'refused' },
  { writer: 'remember → lock', at: '.vaultkeeper/locks', args: ['remember', 'hi there'], outcome: 'refused' },
  { writer: 'remember → state folder', at: '.vaultkeeper', args: ['remember', 'hi there'], outcome: 'refused' },
  { writer: 'forget → tombstones', at: '.vaultkeeper/tombstones.jsonl', args: ['forget', '--match', 'wifi password'], outcome: 'refused' },
  { writer: 'dream → state', at: '.vaultkeeper/state.json', args: DREAM, outcome: 'refused' },
  { writer: 'dream → scratch trees', at: '.vaultkeeper/worktrees', args: DREAM, outcome: 'refused' },
  { writer: 'dream → index.md', at: 'index.md', args: DREAM, outcome: 'refused' },
  { writer: 'dream → MEMORY.md', at: 'MEMORY.md', args: DREAM, outcome: 'refused' },
  { writer: 'dream → log.md', at: 'log.md', args: DREAM, outcome: 'refused' },
  { writer: 'dream → page', at: '2_Areas/General.md', args: DREAM, outcome: 'read-only' },
  { writer: 'dream → page', at: '2_Areas', args: DREAM, outcome: 'read-only', commit: true },
  { writer: 'dream --dry-run → page', at: '2_Areas/General.md', args: [...DREAM, '--dry-run'], outcome: 'read-only' },
  { writer: 'dream --dry-run → page', at: '2_Areas', args: [...DREAM, '--dry-run'], outcome: 'read-only', commit: true },
  // An uncommitted folder-for-link swap is a change the dry run's safety check refuses; nothing leaves either way.
  { writer: 'dream --dry-run → page', at: '2_Areas', args: [...DREAM, '--dry-run'], outcome: 'untouched' },
  { writer: 'reindex → index manifest', at: '.vaultkeeper/index-manifest.json', args: ['reindex', '--clear'], outcome: 'refused' },
  { writer: 'reindex → LanceDB folder', at: '.vaultkeeper/index', args: ['reindex'], outcome: 'refused' },
  { writer: 'reindex → embedding cache', at: '.vaultkeeper/cache', args: ['reindex'], outcome: 'warned', env: { VAULTKEEPER_EMBEDDER: 'hash' } },
  { writer: 'search → recall events', at: '.vaultkeeper/recall.jsonl', args: ['search', 'coffee'], outcome: 'refused' },
  { writer: 'status --dashboard → dashboard', at: '4_Resources/Dashboard.md', args: ['status', '--dashboard'], outcome: 'refused' },
  { writer: 'status --dashboard → dashboard', at: '4_Resources', args: ['status', '--dashboard'], outcome: 'refused', commit: true },
  { writer: 'daemon digest job → digest', at: `4_Resources/digests/Digest ${DIGEST_DATE}.md`, args: digest, outcome: 'refused' },
  { writer: 'daemon digest job → digest', at: '4_Resources/digests', args: digest, outcome: 'refused', commit: true },
  { writer: 'daemon health job → health log', at: '.vaultkeeper/health.jsonl', args: health, outcome: 'refused' },
];

/** Every entry under dir (links not followed) with its bytes' hash and mtime. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of (await readdir(dir, { recursive: true })).sort()) {
    const abs = path.join(dir, rel);
    const info = await lstat(abs);
    const bytes = info.isFile() ? createHash('sha256').update(await readFile(abs)).digest('hex') : info.isDirectory() ? 'dir' : 'other';
    out[rel] = `${bytes} ${info.mtimeMs}`;
  }
  return out;
}

/** Sets every mtime under dir (and dir's) to OLD, so any write shows. */
async function age(dir: string): Promise<void> {
  for (const rel of await readdir(dir, { recursive: true })) await utimes(path.join(dir, rel), OLD, OLD);
  await utimes(dir, OLD, OLD);
}

let template = '';
let templateDir = '';
afterAll(() => rm(templateDir, { recursive: true, force: true }));

beforeAll(async () => {
  // Not a per-test temp dir: the template outlives each test.
  templateDir = await mkdtemp(path.join(os.tmpdir(), 'vk-matrix-'));
  template = await initVault(templateDir, { env });
  for (const args of [
    ['remember', 'I like coffee', '-t', 'coffee', '--date', '2026-01-05'],
    DREAM,
    ['remember', 'I like espresso', '-t', 'coffee', '--date', '2026-01-06'],
    ['remember', 'the wifi password is hunter2'],
  ]) {
    const result = await runCli(['--vault', template, ...args], { env });
    expect(result.code, result.stderr).toBe(0);
  }
  // Every file the writers touch exists, so a link to it has a target with bytes to watch.
  await runCli(['--vault', template, 'dream', '--offline', '--force', '--dry-run'], { env });
  for (const args of [['search', 'coffee'], ['status', '--dashboard']]) expect((await runCli(['--vault', template, ...args], { env })).code).toBe(0);
  await digest(template);
  await health(template);
  expect((await git(template, ['status', '--porcelain'])).trim()).toBe('');
}, 120_000);

describe('no program write leaves the vault', () => {
  for (const c of CASES) {
    for (const style of ['absolute', 'relative'] as const) {
      it(`${c.writer}: ${c.at} as an ${style} link out of the vault${c.commit === true ? ' (committed)' : ''} is ${c.outcome}`, async () => {
        const dir = await tempDir();
        const root = path.join(dir, 'vault');
        await cp(template, root, { recursive: true, verbatimSymlinks: true });
        const outside = path.join(dir, 'outside');
        const moved = path.join(outside, path.basename(c.at));
        await cp(path.join(root, c.at), moved, { recursive: true }).catch(async () => {
          // A folder the program makes on demand (scratch trees): an empty one outside.
          await cp(path.join(template, '0_Inbox'), moved, { recursive: true });
        });
        const link = path.join(root, c.at);
        await rm(link, { recursive: true, force: true });
        await symlink(style === 'absolute' ? moved : path.relative(path.dirname(link), moved), link);
        if (c.commit === true) {
          await git(root, ['add', '--all']);
          await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'link my notes']);
        }
        await age(outside);
        const before = await fingerprint(outside);

        const result = await runWriter(c, root);

        expect(await fingerprint(outside), 'the outside target is untouched').toEqual(before);
        if (c.outcome === 'refused') {
          expect(result.code, result.stderr).toBe(1);
          const last = result.stderr.trimEnd().split('\n').at(-1)!;
          expect(last).toMatch(/^vaultkeeper: .*symbolic link/);
          expect(last).toContain(c.at.split('/').length > 1 && c.at.startsWith('.vaultkeeper/') ? c.at : c.at.split('/')[0]!);
          expect(result.stderr).not.toMatch(/\n\s+at /);
        } else if (c.outcome === 'warned') {
          expect(result.code, result.stderr).toBe(0);
          expect(result.stderr).toMatch(/symbolic link/);
          expect(result.stderr).toContain(c.at);
          expect(result.stderr).not.toMatch(/\n\s+at /);
        } else if (c.outcome === 'untouched') {
          expect([0, 1]).toContain(result.code);
          expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
        } else {
          expect(result.code, result.stderr).toBe(0);
          const dream = JSON.parse(result.stdout) as { status: string; outside?: string[] };
          expect(dream.status).toBe(Array.isArray(c.args) && c.args.includes('--dry-run') ? 'dry-run' : 'ok');
          expect(dream.outside).toContain('2_Areas/General.md');
        }
      });
    }
  }

  it('intent recovery meets a page linked out of the vault since the crash: the run is undone, the link kept, nothing written through it', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'vault');
    await cp(template, root, { recursive: true, verbatimSymlinks: true });
    const killed = await runCli(['--vault', root, ...DREAM], { env: { ...env, VAULTKEEPER_FAILPOINT: 'dream:before-apply' } });
    expect(killed.code, killed.stderr).not.toBe(0);
    const intent = JSON.parse(await readFile(path.join(root, '.vaultkeeper/intent.json'), 'utf8')) as { request: { paths: string[] } };
    const page = intent.request.paths.find((p) => p.startsWith('2_Areas/'));
    expect(page, `a page among ${intent.request.paths.join(', ')}`).toBeDefined();
    // A person links the page in from elsewhere (an Obsidian habit) before any command runs again.
    const outside = path.join(dir, 'outside');
    const moved = path.join(outside, path.basename(page!));
    await cp(path.join(root, page!), moved);
    await rm(path.join(root, page!));
    await symlink(moved, path.join(root, page!));
    await age(outside);
    const before = await fingerprint(outside);
    const journal = await readFile(path.join(root, 'log.md'), 'utf8');

    const next = await runCli(['--vault', root, 'remember', 'Reads Saramago'], { env });
    expect(next.code, next.stderr).toBe(0);
    expect(await fingerprint(outside), 'the outside target is untouched').toEqual(before);
    expect((await lstat(path.join(root, page!))).isSymbolicLink(), 'the link is the person’s and stays').toBe(true);
    await expect(lstat(path.join(root, '.vaultkeeper/intent.json'))).rejects.toThrow();
    // Undone, not finished: no dream commit, the watermark where it was (the batch is redone).
    expect(await readFile(path.join(root, 'log.md'), 'utf8')).toBe(journal);
    expect(await git(root, ['log', '-1', '--format=%s'])).not.toMatch(/^dream:/);

    const again = await runCli(['--vault', root, ...DREAM, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { status: string; outside?: string[] }).outside).toContain(page);
    expect(await fingerprint(outside), 'the next dream reads the page, never rewrites it').toEqual(before);
  });

  it('a page linked in from outside is still read and indexed', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'vault');
    await cp(template, root, { recursive: true, verbatimSymlinks: true });
    const moved = path.join(dir, 'outside.md');
    await rename(path.join(root, '2_Areas/General.md'), moved);
    await symlink(moved, path.join(root, '2_Areas/General.md'));
    await runJson(['--vault', root, 'reindex'], { env });
    const found = await runJson<{ results: { path: string }[] }>(['--vault', root, 'search', 'I like coffee', '--kind', 'page'], { env });
    expect(found.results.map((r) => r.path)).toContain('2_Areas/General.md');
  });
});
