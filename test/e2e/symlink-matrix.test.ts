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
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const env = { VAULTKEEPER_TIMEZONE: 'UTC' };
const OLD = new Date('2001-02-03T04:05:06Z');

interface Case {
  writer: string;
  /** Vault-relative path replaced by a link to a copy of it outside the vault. */
  at: string;
  args: string[];
  /** refused: exit 1 and one line naming the link; read-only: the run succeeds and names the page in `outside`. */
  outcome: 'refused' | 'read-only' | 'untouched';
  /** Commit the link first (git cannot snapshot files beyond a link that replaced a tracked folder). */
  commit?: boolean;
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
  { writer: 'dream → page', at: '2_Areas/Facts.md', args: DREAM, outcome: 'read-only' },
  { writer: 'dream → page', at: '2_Areas', args: DREAM, outcome: 'read-only', commit: true },
  { writer: 'dream --dry-run → page', at: '2_Areas/Facts.md', args: [...DREAM, '--dry-run'], outcome: 'read-only' },
  { writer: 'dream --dry-run → page', at: '2_Areas', args: [...DREAM, '--dry-run'], outcome: 'read-only', commit: true },
  // An uncommitted folder-for-link swap is a change the dry run's safety check refuses; nothing leaves either way.
  { writer: 'dream --dry-run → page', at: '2_Areas', args: [...DREAM, '--dry-run'], outcome: 'untouched' },
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

        const result = await runCli(['--vault', root, ...c.args, ...(c.outcome === 'read-only' ? ['--json'] : [])], { env });

        expect(await fingerprint(outside), 'the outside target is untouched').toEqual(before);
        if (c.outcome === 'refused') {
          expect(result.code, result.stderr).toBe(1);
          const last = result.stderr.trimEnd().split('\n').at(-1)!;
          expect(last).toMatch(/^vaultkeeper: .*symbolic link/);
          expect(last).toContain(c.at.split('/').length > 1 && c.at.startsWith('.vaultkeeper/') ? c.at : c.at.split('/')[0]!);
          expect(result.stderr).not.toMatch(/\n\s+at /);
        } else if (c.outcome === 'untouched') {
          expect([0, 1]).toContain(result.code);
          expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
        } else {
          expect(result.code, result.stderr).toBe(0);
          const dream = JSON.parse(result.stdout) as { status: string; outside?: string[] };
          expect(dream.status).toBe(c.args.includes('--dry-run') ? 'dry-run' : 'ok');
          expect(dream.outside).toContain('2_Areas/Facts.md');
        }
      });
    }
  }

  it('a page linked in from outside is still read and indexed', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'vault');
    await cp(template, root, { recursive: true, verbatimSymlinks: true });
    const moved = path.join(dir, 'outside.md');
    await rename(path.join(root, '2_Areas/Facts.md'), moved);
    await symlink(moved, path.join(root, '2_Areas/Facts.md'));
    await runJson(['--vault', root, 'reindex'], { env });
    const found = await runJson<{ results: { path: string }[] }>(['--vault', root, 'search', 'I like coffee', '--kind', 'page'], { env });
    expect(found.results.map((r) => r.path)).toContain('2_Areas/Facts.md');
  });
});
