/**
 * A crash at any point leaves the vault consistent (DESIGN §9): for every named failpoint of remember,
 * forget, reindex, dream and undo, the built CLI is killed there (SIGKILL, as kill -9 would) and the next
 * command must leave a committed, consistent vault with the step either whole or absent: git status
 * clean, the watermark written by a dream commit, every fact not forgotten searchable or cited by a page,
 * the dream and undo still working. docs/reliability.md lists the failpoints.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/core/lock.js';
import { readJournal } from '../../src/dream/journal.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();

const D1 = '2025-06-01';
const D2 = '2025-06-02';
const FACTS = [
  { id: 'f-aaaaaaaaa1', date: D1, text: 'Prefers dark roast coffee' },
  { id: 'f-aaaaaaaaa2', date: D1, text: 'Plays the cello on Sundays' },
  { id: 'f-aaaaaaaaa3', date: D2, text: 'Visits Porto every spring' },
];
const FORGET = { id: 'f-aaaaaaaaa4', date: D2, text: 'The studio door code is 4711' };
const logOf = (date: string): string =>
  `# ${date}\n\n## 09:00 · cli\n${[...FACTS, FORGET]
    .filter((f) => f.date === date)
    .map((f) => `- [fact] ${f.text} #notes ^${f.id}`)
    .join('\n')}\n`;

interface Case {
  failpoint: string;
  /** Brings the vault to the moment before the killed command (e.g. a finished dream before an undo). */
  before?: (root: string) => Promise<void>;
  killed: string[];
  /** The next command, which must recover. */
  next: string[];
  /** Facts the killed command added, which must be kept (searchable) if it got that far. */
  adds?: { text: string };
  /** More environment for the killed command. */
  env?: Record<string, string>;
  /**
   * False when the killed command changed a page of the dream run after it (forget's scrub): undo then refuses by
   * design (docs/cli.md, undo: VK_UNDO_CONFLICT), so the last step checks that refusal instead.
   */
  undoable?: boolean;
}

const dreamForce = ['dream', '--force'];
const CASES: Case[] = [
  { failpoint: 'remember:after-append', killed: ['remember', 'Learns the tango', '--date', D2], next: ['remember', 'Reads Saramago'], adds: { text: 'Learns the tango' } },
  { failpoint: 'forget:after-append', killed: ['forget', FORGET.id], next: ['remember', 'Reads Saramago'] },
  // Killed after the pages lost the forgotten fact's lines, before the commit: the next command commits them as
  // the forget's (recover:), not as a person's edits, and the fact stays forgotten.
  { failpoint: 'forget:after-pages', before: dreamOnce, killed: ['forget', FORGET.id], next: ['remember', 'Reads Saramago'], undoable: false },
  { failpoint: 'reindex:after-clear', before: reindex, killed: ['reindex', '--clear'], next: ['search', 'cello'] },
  { failpoint: 'reindex:before-manifest', before: reindex, killed: ['reindex', '--clear'], next: ['search', 'cello'] },
  { failpoint: 'reindex:before-check-file', before: reindex, killed: ['reindex', '--clear'], next: ['search', 'cello'] },
  // With a projection worker (forced: the vault is small), killed while it projects and after it has finished.
  ...['reindex:projecting', 'reindex:before-manifest'].map((failpoint) => ({ failpoint, before: reindex, killed: ['reindex', '--clear'], next: ['search', 'cello'], env: { VAULTKEEPER_INDEX_WORKERS: '1' } })),
  // A new table written a part a time (a part a file here), killed once the first part is in.
  { failpoint: 'reindex:part-written', before: reindex, killed: ['reindex', '--clear'], next: ['search', 'cello'], env: { VAULTKEEPER_INDEX_PART_ROWS: '1' } },
  ...['dream:after-snapshot', 'dream:after-consolidate', 'dream:before-apply', 'dream:after-apply', 'dream:after-commit'].flatMap((failpoint) => [
    { failpoint, killed: dreamForce, next: ['remember', 'Reads Saramago'] },
    { failpoint, killed: dreamForce, next: dreamForce },
  ]),
  ...['undo:after-revert', 'undo:after-commit'].map((failpoint) => ({ failpoint, before: dreamOnce, killed: ['undo', 'RUN'], next: ['remember', 'Reads Saramago'] })),
];

async function reindex(root: string): Promise<void> {
  await runJson(['--vault', root, 'reindex']);
}

async function dreamOnce(root: string): Promise<void> {
  const run = await runJson<{ status: string }>(['--vault', root, 'dream', '--force']);
  expect(run.status).toBe('ok');
}

async function makeVault(): Promise<string> {
  const root = await initVault(await tempDir());
  await writeTree(root, {
    [`logs/${D1}.md`]: logOf(D1),
    [`logs/${D2}.md`]: logOf(D2),
    '2_Areas/Notes.md': '---\ntitle: Notes\n---\n# Notes\n\n- A line a person wrote.\n',
    '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n',
  });
  await git(root, ['add', '--all']);
  await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'notes']);
  // An edit a person has not committed: the dream's snapshot commits it first.
  await writeTree(root, { '2_Areas/Notes.md': '---\ntitle: Notes\n---\n# Notes\n\n- A line a person wrote.\n- Another, not committed yet.\n' });
  return root;
}

/** The newest dream run in git's history, or null. */
async function newestDreamRun(root: string): Promise<string | null> {
  const log = await git(root, ['log', '--format=%B%x1e']);
  for (const body of log.split('\x1e')) {
    if (/^Vaultkeeper-Op: undo$/m.test(body)) return null;
    const run = /^Vaultkeeper-Run: (r-\S+)$/m.exec(body)?.[1];
    if (run !== undefined && /^Vaultkeeper-Op: dream$/m.test(body)) return run;
  }
  return null;
}

/** Fact ids cited by any page (every markdown file outside logs/ and hidden folders). */
async function citedIds(root: string): Promise<Set<string>> {
  const cited = new Set<string>();
  for (const rel of await readdir(root, { recursive: true })) {
    if (!rel.endsWith('.md') || rel.startsWith('logs') || rel.startsWith('.')) continue;
    for (const match of (await readFile(path.join(root, rel), 'utf8')).matchAll(/#\^(f-[0-9a-z]+)/g)) cited.add(match[1]!);
  }
  return cited;
}

async function expectConsistent(root: string, options: { forgotten: boolean; extra: string[] }): Promise<void> {
  // Clean but for the person's own uncommitted edit, which only a dream's snapshot commits.
  expect((await gitStatus(root)).filter((l) => l !== ' M 2_Areas/Notes.md'), 'git status is clean').toEqual([]);
  await expect(readFile(path.join(root, '.vaultkeeper/intent.json')), 'no intent is left').rejects.toThrow();

  // The watermark is the one a dream commit wrote (or none), never a leftover of a half-applied run.
  const journal = await readJournal(root);
  const run = await newestDreamRun(root);
  if (journal.watermark === null) expect(run).toBeNull();
  else {
    expect(run, 'a dream commit holds the watermark').not.toBeNull();
    const line = (await readFile(path.join(root, 'log.md'), 'utf8')).split('\n').find((l) => l.includes(`watermark=${journal.watermark}`));
    expect(line).toContain(`run ${run}`);
  }

  // Every fact is cited by a page or searchable as a fact; a forgotten one is neither.
  const cited = await citedIds(root);
  for (const fact of FACTS) {
    if (cited.has(fact.id)) continue;
    const results = (await runJson<{ results: Array<{ id: string; kind: string }> }>(['--vault', root, 'search', fact.text, '--kind', 'fact'])).results;
    expect(results.map((r) => r.id), `${fact.id} is searchable or cited`).toContain(fact.id);
  }
  for (const text of options.extra) {
    const results = (await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', text])).results;
    expect(results.map((r) => r.text).join('\n'), `"${text}" is searchable`).toContain(text);
  }
  if (options.forgotten) {
    expect(cited.has(FORGET.id)).toBe(false);
    const results = (await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', 'studio door code'])).results;
    expect(results.map((r) => r.text).join('\n')).not.toContain('4711');
  }
  // The person's uncommitted line survived whatever happened.
  expect(await readFile(path.join(root, '2_Areas/Notes.md'), 'utf8')).toContain('Another, not committed yet.');
}

describe('a kill at every failpoint', () => {
  it.each(CASES)('$failpoint, then `$next.0`: the vault is committed and consistent', async (c) => {
    const root = await makeVault();
    await c.before?.(root);
    const killed = c.killed.map((arg) => (arg === 'RUN' ? '' : arg));
    if (c.killed.includes('RUN')) killed[killed.indexOf('')] = (await newestDreamRun(root))!;
    const crash = await runCli(['--vault', root, ...killed], { env: { ...c.env, VAULTKEEPER_FAILPOINT: c.failpoint } });
    expect(crash.code, `the failpoint ${c.failpoint} was reached: ${crash.stderr}`).toBe(-1);

    // A dead process's locks are taken over at once (waitMs 0), not after a 15 s staleness wait.
    for (const name of ['write', 'dream', 'index']) {
      const release = await acquireLock(root, name, { waitMs: 0 });
      await release();
    }

    const next = await runCli(['--vault', root, ...c.next]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toMatch(/another process is indexing/);

    const forgotten = c.killed[0] === 'forget';
    const extra = [...(c.adds ? [c.adds.text] : []), ...(c.next[0] === 'remember' ? [c.next[1]!] : [])];
    await expectConsistent(root, { forgotten, extra });

    // The dream goes on from here, and its newest run can be undone.
    const after = await runJson<{ status: string; run: string | null }>(['--vault', root, 'dream', '--force']);
    expect(['ok', 'noop']).toContain(after.status);
    expect((await readJournal(root)).watermark).toBe(D2);
    const run = await newestDreamRun(root);
    expect(run).not.toBeNull();
    const undo = await runCli(['--vault', root, 'undo', run!]);
    expect(await gitStatus(root)).toEqual([]);
    if (c.undoable === false) {
      expect(undo.stderr).toMatch(/changed by vaultkeeper since the run; nothing was changed/);
      return;
    }
    expect(undo.code, undo.stderr).toBe(0);
    expect((await readJournal(root)).watermark).toBeNull();
  }, 300_000);
});
