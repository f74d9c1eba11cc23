/**
 * What a dream keeps from run to run so that a backlog's later runs cost what they change (issue 31): the review
 * page of conflicts rolls to older parts before it passes the page bound (conflicts.ts), the pages' histories are
 * read since the last run only (git/path-history.ts), and the scratch tree is reset, not made again (git/worktree.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PAGE_BYTES, MAX_PAGE_LINES } from '../../src/dream/bound.js';
import { closeResolved, CONFLICTS_PAGE, readConflicts } from '../../src/dream/conflicts.js';
import { fileConflicts } from '../../src/dream/generate.js';
import { pathHistories } from '../../src/git/audit.js';
import { historiesAt } from '../../src/git/path-history.js';
import { checkoutScratch, headCommit } from '../../src/git/worktree.js';
import { pageText } from '../../src/pages/page-read.js';

let temp = '';
afterEach(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
  temp = '';
});

const git = (root: string, ...args: string[]): string => execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { encoding: 'utf8' });

describe('the review page of conflicts', () => {
  it('rolls its entries, byte for byte, to older parts before it passes the bound; they are read and ticked there', async () => {
    temp = await mkdtemp(path.join(tmpdir(), 'vk-roll-'));
    await mkdir(path.join(temp, '0_Inbox'), { recursive: true });
    await mkdir(path.join(temp, '2_Areas'), { recursive: true });
    // A page holding the conflict lines, so each entry names it (` · on [[…]]`).
    const ids = Array.from({ length: 150 }, (_, i) => [`f-a${String(i).padStart(8, '0')}`, `f-b${String(i).padStart(8, '0')}`] as const);
    const line = (i: number, box: ' ' | 'x'): string => `- [${box}] **subject ${i}**: "one" [[2024-01-01#^${ids[i]![0]}]] or "two" [[2024-01-01#^${ids[i]![1]}]], both on 2024-01-01`;
    await writeFile(path.join(temp, '2_Areas/Work.md'), `# Work\n\n## Conflicts\n\n${ids.map((_, i) => line(i, ' ')).join('\n')}\n`);
    const dates = new Map(ids.flat().map((id) => [id, '2024-01-01']));
    const note = 'two values on 2024-01-01: "one" and "two"; neither is current until a person decides (tick the item on the page to keep the later, or write the value under Current)';
    // Three runs of 50 conflicts, about 13 KB each (40 KB in all): the page rolls twice.
    for (let run = 0; run < 3; run++) {
      const conflicts = ids.slice(run * 50, run * 50 + 50).map(([a, b], i) => ({ subject: `subject ${run * 50 + i}`, fact_ids: [a, b], note }));
      await fileConflicts(temp, `r-2030010${run}-000000`, conflicts, dates);
    }
    const files = [CONFLICTS_PAGE, '0_Inbox/conflicts 2.md', '0_Inbox/conflicts 3.md'];
    const texts = await Promise.all(files.map((rel) => readFile(path.join(temp, rel), 'utf8')));
    for (const [i, text] of texts.entries()) {
      expect(Buffer.byteLength(text), files[i]).toBeLessThanOrEqual(MAX_PAGE_BYTES);
      expect(text.split('\n').length, files[i]).toBeLessThanOrEqual(MAX_PAGE_LINES);
    }
    await expect(readFile(path.join(temp, '0_Inbox/conflicts 4.md'))).rejects.toThrow(/ENOENT/);
    expect(texts[0]).toContain('Older entries: [[0_Inbox/conflicts 3|conflicts 3]] · [[0_Inbox/conflicts 2|conflicts 2]]');
    expect(texts[1]).toMatch(/^title: Conflicts 2$/m);
    // Every entry once, oldest part first, as filed.
    const entryLines = [texts[1]!, texts[2]!, texts[0]!].flatMap((t) => t.split('\n').filter((l) => l.startsWith('- [ ] **')));
    expect(entryLines.map((l) => /\*\*subject (\d+)\*\*/.exec(l)![1])).toEqual(ids.map((_, i) => `${i}`));
    expect(entryLines.every((l) => l.endsWith(' · on [[2_Areas/Work|Work]]'))).toBe(true);

    const open = await readConflicts(temp);
    expect(open).toHaveLength(150);
    expect(open.filter((c) => c.resolved)).toEqual([]);
    // A conflict ticked on its page is ticked in the part that holds its entry, and nowhere else.
    const page = await readFile(path.join(temp, '2_Areas/Work.md'), 'utf8');
    await writeFile(path.join(temp, '2_Areas/Work.md'), page.replace(line(3, ' '), line(3, 'x')));
    expect(await closeResolved(temp)).toBe(1);
    const part = await readFile(path.join(temp, '0_Inbox/conflicts 2.md'), 'utf8');
    expect(part).toContain('- [x] **subject 3**');
    expect(part.replace('- [x] **subject 3**', '- [ ] **subject 3**')).toBe(texts[1]);
    const after = await readConflicts(temp);
    expect(after.filter((c) => c.resolved).map((c) => [c.file, c.subject])).toEqual([['0_Inbox/conflicts 2.md', 'subject 3']]);
  });
});

describe('the pages’ histories', () => {
  it('read once and then since the last commit read, give what pathHistories gives', async () => {
    temp = await mkdtemp(path.join(tmpdir(), 'vk-history-'));
    git(temp, 'init', '-q');
    const commit = async (files: Record<string, string>, message: string): Promise<string> => {
      for (const [rel, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(temp, rel)), { recursive: true });
        await writeFile(path.join(temp, rel), text);
      }
      git(temp, 'add', '--all');
      git(temp, 'commit', '-qm', message);
      return headCommit(temp);
    };
    await commit({ 'a.md': '1', 'Zoë — Work.md': '1' }, 'person: first');
    const second = await commit({ 'a.md': '2', 'b/c.md': '1' }, 'dream: second\n\nVaultkeeper-Op: dream');
    const rels = ['a.md', 'Zoë — Work.md', 'b/c.md', 'missing.md'];
    const compare = async (at: string): Promise<void> => {
      const kept = await historiesAt(temp, at);
      const asked = await pathHistories(temp, rels);
      for (const rel of rels) expect(kept.get(rel) ?? [], rel).toEqual(asked.get(rel));
    };
    await compare(second);
    const third = await commit({ 'b/c.md': '2', 'missing.md': 'now' }, 'dream: third\n\nVaultkeeper-Op: dream');
    await compare(third);
    expect((await historiesAt(temp, third)).get('b/c.md')?.map((c) => c.op)).toEqual(['dream', 'dream']);
    // Not a descendant (history rewritten back): read whole again, not added to.
    git(temp, 'reset', '-q', '--hard', second);
    const redone = await commit({ 'a.md': '3' }, 'person: redone');
    await compare(redone);
    expect((await historiesAt(temp, redone)).get('missing.md')).toBeUndefined();
  });
});

describe('the scratch tree', () => {
  it('is reset to the next base: what a run left is gone, the files are the commit’s, a folder that is no worktree is made again', async () => {
    temp = await mkdtemp(path.join(tmpdir(), 'vk-scratch-'));
    git(temp, 'init', '-q');
    await writeFile(path.join(temp, 'a.md'), 'one\n');
    git(temp, 'add', '--all');
    git(temp, 'commit', '-qm', 'first');
    const first = await headCommit(temp);
    const tree = path.join(temp, '.vaultkeeper', 'worktrees', 'scratch');
    await checkoutScratch(temp, tree, first);
    expect(pageText(tree, 'a.md')).toBe('one\n');
    // A run's leftovers: a changed page, a new one staged, one untracked, an ignored one.
    await writeFile(path.join(tree, 'a.md'), 'edited\n');
    await writeFile(path.join(tree, 'new.md'), 'new\n');
    git(tree, 'add', 'new.md');
    await writeFile(path.join(tree, 'loose.md'), 'loose\n');
    await writeFile(path.join(temp, 'a.md'), 'two\n');
    git(temp, 'commit', '-qam', 'second');
    const second = await headCommit(temp);
    await checkoutScratch(temp, tree, second);
    expect(pageText(tree, 'a.md')).toBe('two\n');
    for (const rel of ['new.md', 'loose.md']) await expect(readFile(path.join(tree, rel))).rejects.toThrow(/ENOENT/);
    expect(git(tree, 'rev-parse', 'HEAD').trim()).toBe(second);
    expect(git(tree, 'status', '--porcelain')).toBe('');
    // A plain folder in its place (no worktree): removed and made afresh.
    await rm(tree, { recursive: true, force: true });
    await mkdir(tree, { recursive: true });
    await writeFile(path.join(tree, 'stray.md'), 'x');
    await checkoutScratch(temp, tree, first);
    expect(pageText(tree, 'a.md')).toBe('one\n');
    await expect(readFile(path.join(tree, 'stray.md'))).rejects.toThrow(/ENOENT/);
  });
});
