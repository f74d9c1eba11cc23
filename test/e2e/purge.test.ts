/**
 * `purge` erases (DESIGN §5): a planted fact, placed on pages by a dream, found by search, quoted in commit
 * messages, forgotten once (a tombstone), held by an unreachable git object and pushed to a remote, is purged; then
 * no file under the vault (.git and the index folder included), no git object reachable or not, and no index row
 * holds it, every link to a fact still resolves, log.md says a purge happened without the text, and the output says
 * the remote still holds the old history.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { vaultByteMap, whereHits } from '../helpers/scan-vault.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError, git, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const execFileAsync = promisify(execFile);

const PLANTED = 'Zorblax Quintavelle is my neighbour and keeps bees';
const NEEDLES = ['Zorblax', 'zorblax', 'Quintavelle', 'quintavelle'];

interface PurgeJson {
  purged: { id: string; path: string; line: number }[];
  files: string[];
  commit: string;
  history: { changed: number };
  index: string;
  remote: { refs: string[]; note: string | null };
}

/** The pages and MEMORY.md (not schema.md, whose examples cite a log no vault has). */
async function pageFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const rel = path.relative(root, path.join(entry.parentPath, entry.name));
    if (entry.isFile() && rel.endsWith('.md') && !rel.startsWith('.') && !rel.startsWith('logs/') && rel !== 'schema.md') out.push(rel);
  }
  return out;
}

describe('purge', () => {
  it('leaves no trace of the text in files, git objects or the index, and every link still resolves', async () => {
    const dir = await tempDir();
    const root = await initVault(path.join(dir, 'vault'));
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'timezone: UTC\n');
    await git(root, ['commit', '--quiet', '-am', 'config']);
    const input = [PLANTED, 'Ana prefers dark roast coffee', 'Ana lives in Lisbon', 'Zorblax Quintavelle gave us honey'].join('\n');
    const remembered = await runJson<{ facts: { id: string }[] }>(['--vault', root, 'remember', '--stdin', '--date', '2026-06-01'], { input });
    const [plantedId, coffeeId] = remembered.facts.map((f) => f.id);
    // A forget first: its tombstone and commit message hold the other fact's text.
    await runJson(['--vault', root, 'forget', remembered.facts[3]!.id]);
    const dream = await runJson<{ status: string }>(['--vault', root, 'dream', '--force', '--offline']);
    expect(dream.status).toBe('ok');
    const pagesBefore = (await Promise.all((await pageFiles(root)).map((p) => readFile(path.join(root, p), 'utf8')))).join('\n');
    expect(pagesBefore).toContain('Zorblax');
    // The query names the whole name: recall.jsonl keeps queries, and purge erases the texts it was given, not a word of them.
    const found = await runJson<{ results: { id: string }[] }>(['--vault', root, 'search', 'Zorblax Quintavelle bees']);
    expect(JSON.stringify(found.results)).toContain('Zorblax');
    // An unreachable object and a remote that has the history.
    await writeFile(path.join(dir, 'loose.txt'), `note: ${PLANTED}\n`);
    await git(root, ['hash-object', '-w', path.join(dir, 'loose.txt')]);
    await execFileAsync('git', ['init', '--quiet', '--bare', path.join(dir, 'remote.git')]);
    await git(root, ['remote', 'add', 'origin', path.join(dir, 'remote.git')]);
    await git(root, ['push', '--quiet', 'origin', 'HEAD']);
    await git(root, ['fetch', '--quiet', 'origin']);
    // Before: the text is in the logs, the pages, the index files, the tombstones' commit and git objects.
    const before = whereHits(await vaultByteMap(root), 'Zorblax');
    expect(before).toEqual(expect.arrayContaining(['logs/2026-06-01.md', 'git objects']));
    expect(before.some((where) => where.startsWith('.vaultkeeper/index/')), 'the index files hold it').toBe(true);

    // Without a terminal and without --yes, nothing happens.
    const refused = await runCli(['--vault', root, 'purge', '--match', 'Zorblax']);
    expectOneLineError(refused, 2, /confirm with --yes/);

    const result = await runJson<PurgeJson>(['--vault', root, 'purge', '--match', 'Zorblax Quintavelle', '--yes', '--reason', 'asked to be forgotten']);
    expect(result.purged.map((f) => f.id).sort()).toEqual([plantedId, remembered.facts[3]!.id].sort());
    expect(result.index).toBe('rebuilt');
    expect(result.history.changed).toBeGreaterThan(0);
    expect(result.remote.refs).toContain('refs/remotes/origin/main');
    expect(result.remote.note).toMatch(/origin still holds the old history: the next `vaultkeeper sync` force-pushes/);

    const after = await vaultByteMap(root);
    for (const needle of NEEDLES) expect(whereHits(after, needle), `${needle} left in the vault or git`).toEqual([]);

    // The log keeps the line with its id and category; the rest of the log is as it was.
    const log = await readFile(path.join(root, 'logs/2026-06-01.md'), 'utf8');
    expect(log).toContain(`- [fact] [purged] ^${plantedId}`);
    expect(log).toContain(`^${coffeeId}`);
    expect(log).toContain('Ana prefers dark roast coffee');
    // Every citation on a page still names a block that exists in its log.
    const pages = (await Promise.all((await pageFiles(root)).map((p) => readFile(path.join(root, p), 'utf8')))).join('\n');
    const cited = [...pages.matchAll(/\[\[(\d{4}-\d{2}-\d{2})#\^(f-[0-9a-z]{10})/g)];
    expect(cited.filter(([, date]) => date === '2026-06-01').length).toBeGreaterThan(0);
    for (const [, date, id] of cited) {
      const ids = new Set([...(await readFile(path.join(root, `logs/${date}.md`), 'utf8')).matchAll(/\^(f-[0-9a-z]{10})\s*$/gm)].map((m) => m[1]!));
      expect(ids.has(id!), `${date}#^${id} cited but missing`).toBe(true);
    }
    // log.md records the purge, never the text.
    const journal = await readFile(path.join(root, 'log.md'), 'utf8');
    expect(journal).toMatch(new RegExp(`· purge · .*${plantedId}.* · reason: asked to be forgotten`));
    // Search no longer finds it, still finds the rest; the working tree is committed; git is sound.
    const gone = await runJson<{ results: { id: string; text: string }[] }>(['--vault', root, 'search', 'Zorblax bees']);
    expect(gone.results.map((r) => r.id)).not.toContain(plantedId);
    expect(JSON.stringify(gone.results)).not.toMatch(/zorblax|purged/i);
    const coffee = await runJson<{ results: { id: string }[] }>(['--vault', root, 'search', 'dark roast coffee']);
    expect(coffee.results.length).toBeGreaterThan(0);
    expect(await gitStatus(root)).toEqual([]);
    await git(root, ['fsck', '--full', '--strict']);
    expect(await git(root, ['log', '-1', '--format=%s'])).toMatch(/^purge: 2 facts/);
  });

  it('refuses an unknown id with one line and changes nothing', async () => {
    const root = await initVault(await tempDir());
    await mkdir(path.join(root, 'logs'), { recursive: true });
    const head = await git(root, ['rev-parse', 'HEAD']);
    const result = await runCli(['--vault', root, 'purge', 'f-zzzzzzzzzz', '--yes']);
    expectOneLineError(result, 1, /no fact with id f-zzzzzzzzzz; nothing was purged/);
    expect(await git(root, ['rev-parse', 'HEAD'])).toBe(head);
  });
});
