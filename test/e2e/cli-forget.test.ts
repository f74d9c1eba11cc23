/** `vaultkeeper forget` (DESIGN §5) through the built CLI: tombstones by id or by text, one commit each. */
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeText } from '../../src/text/normalize.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError, git, gitStatus, initVault, snapshot } from '../helpers/vault.js';

const tempDir = useTempDir();
const TOMBSTONES = '.vaultkeeper/tombstones.jsonl';

interface RememberJson {
  facts: { id: string; date: string; path: string; line: number }[];
}
interface ForgetJson {
  tombstoned: { id: string; text: string; path: string; line: number }[];
  already: { id: string }[];
  commit: string | null;
}

async function vaultWithFacts(): Promise<{ root: string; ids: string[] }> {
  const root = await initVault(await tempDir());
  const input = ['Prefers DARK-roast coffee', 'Drinks darkroast espresso', 'Dark roast, never light roast!', 'Likes green tea', '{"text": "The spare key is under the blue flowerpot", "date": "2026-06-10"}'].join('\n');
  const result = await runJson<RememberJson>(['remember', '--stdin', '--date', '2026-06-09'], { cwd: root, input });
  return { root, ids: result.facts.map((f) => f.id) };
}

async function tombstoneLines(root: string): Promise<Record<string, unknown>[]> {
  return (await readFile(path.join(root, TOMBSTONES), 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('forget ID', () => {
  it('writes a tombstone with the normalized text, commits it, and leaves the log untouched', async () => {
    const { root, ids } = await vaultWithFacts();
    const logBefore = await readFile(path.join(root, 'logs/2026-06-10.md'));
    const headBefore = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const result = await runJson<ForgetJson>(['forget', ids[4]!, '--reason', 'a secret, not a memory'], { cwd: root });

    expect(result.tombstoned).toEqual([{ id: ids[4], text: 'The spare key is under the blue flowerpot', path: 'logs/2026-06-10.md', line: 4 }]);
    expect(Object.keys(result.tombstoned[0]!)).toEqual(expect.arrayContaining(['id', 'text']));
    const stones = await tombstoneLines(root);
    expect(stones).toHaveLength(1);
    expect(stones[0]).toEqual({ id: ids[4], text: 'the spare key is under the blue flowerpot', at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/), reason: 'a secret, not a memory' });

    expect((await readFile(path.join(root, 'logs/2026-06-10.md'))).equals(logBefore)).toBe(true);
    expect((await git(root, ['rev-parse', 'HEAD~1'])).trim()).toBe(headBefore);
    expect(result.commit).toBe((await git(root, ['rev-parse', 'HEAD'])).trim());
    expect((await git(root, ['show', '--name-only', '--format=', 'HEAD'])).trim()).toBe(TOMBSTONES);
    const message = await git(root, ['log', '-1', '--format=%B']);
    expect(message.split('\n')[0]).toBe(`forget: 1 fact (id ${ids[4]})`);
    expect(message).toContain('a secret, not a memory');
    expect(message).toMatch(/^Vaultkeeper-Op: forget$/m);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('accepts the id written as an Obsidian block reference', async () => {
    const { root, ids } = await vaultWithFacts();
    const result = await runJson<ForgetJson>(['forget', `^${ids[3]!}`], { cwd: root });
    expect(result.tombstoned.map((f) => f.id)).toEqual([ids[3]]);
  });

  it('says so, and commits nothing, when the fact is already forgotten', async () => {
    const { root, ids } = await vaultWithFacts();
    await runJson(['forget', ids[3]!], { cwd: root });
    const before = await snapshot(root, { includeGit: false });
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const again = await runJson<ForgetJson>(['forget', ids[3]!], { cwd: root });
    expect(again).toMatchObject({ tombstoned: [], already: [{ id: ids[3] }], commit: null });
    expect(await snapshot(root, { includeGit: false })).toEqual(before);
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
  });

  it('an unknown id is exit 1 and writes nothing', async () => {
    const { root } = await vaultWithFacts();
    const before = await snapshot(root, { includeGit: true });
    expectOneLineError(await runCli(['forget', 'f-zzzzzzzzzz', '--json'], { cwd: root }), 1, /no fact with id f-zzzzzzzzzz/);
    // An id no line can carry (a block id is letters, digits and dashes) is answered without a log read, alike.
    expectOneLineError(await runCli(['forget', 'f-zz zz/zz', '--json'], { cwd: root }), 1, /no fact with id f-zz zz\/zz/);
    expect(await snapshot(root, { includeGit: true })).toEqual(before);
  });

  it('removes the lines citing the fact from a page, never from a page linked in from outside the vault', async () => {
    const { root, ids } = await vaultWithFacts();
    const outside = await tempDir();
    const line = `- The spare key is under the blue flowerpot [[2026-06-10#^${ids[4]!}]]`;
    const linked = `# Keys\n\n${line}\n- The car key hangs by the door\n`;
    await writeFile(path.join(outside, 'Keys.md'), linked);
    await mkdir(path.join(root, '2_Areas'), { recursive: true });
    await symlink(path.join(outside, 'Keys.md'), path.join(root, '2_Areas', 'Keys.md'));
    await writeFile(path.join(root, '2_Areas', 'Home.md'), `# Home\n\n${line}\n- The boiler is serviced in May\n`);
    await git(root, ['add', '-A']);
    await git(root, ['commit', '-qm', 'pages']);
    const result = await runJson<ForgetJson & { pages: { path: string; lines: number }[] }>(['forget', ids[4]!], { cwd: root });
    expect(result.pages).toEqual([{ path: '2_Areas/Home.md', lines: 1 }]);
    expect(await readFile(path.join(root, '2_Areas', 'Home.md'), 'utf8')).toBe('# Home\n\n- The boiler is serviced in May\n');
    expect(await readFile(path.join(outside, 'Keys.md'), 'utf8')).toBe(linked);
  });
});

describe('forget --match', () => {
  it('tombstones every fact holding the words as whole words, in one commit', async () => {
    const { root, ids } = await vaultWithFacts();
    const commits = Number((await git(root, ['rev-list', '--count', 'HEAD'])).trim());
    const result = await runJson<ForgetJson>(['forget', '--match', 'Dark Roast'], { cwd: root });
    expect(result.tombstoned.map((f) => [f.id, f.text])).toEqual([
      [ids[0], 'Prefers DARK-roast coffee'],
      [ids[2], 'Dark roast, never light roast!'],
    ]);
    expect((await tombstoneLines(root)).map((s) => [s.id, s.text])).toEqual([
      [ids[0], normalizeText('Prefers DARK-roast coffee')],
      [ids[2], 'dark roast never light roast'],
    ]);
    expect(Number((await git(root, ['rev-list', '--count', 'HEAD'])).trim())).toBe(commits + 1);
    expect((await git(root, ['log', '-1', '--format=%s'])).trim()).toBe('forget: 2 facts (text matching "Dark Roast")');
  });

  it('matching nothing is exit 1 and writes nothing', async () => {
    const { root } = await vaultWithFacts();
    const before = await snapshot(root, { includeGit: true });
    expectOneLineError(await runCli(['forget', '--match', 'roast coffee beans'], { cwd: root }), 1, /no fact with text matching "roast coffee beans"/);
    expectOneLineError(await runCli(['forget', '--match', 'dark ro'], { cwd: root }), 1, /no fact/);
    expect(await snapshot(root, { includeGit: true })).toEqual(before);
  });

  it('refuses a match of only punctuation', async () => {
    const { root } = await vaultWithFacts();
    expectOneLineError(await runCli(['forget', '--match', '!!!'], { cwd: root }), 2, /needs some words/);
  });
});
