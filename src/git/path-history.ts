/**
 * Every path's commits at a commit, newest first (pathHistories' entries, for all paths at once), read in one
 * walk of the history and kept per repository: a later call at a descendant commit reads only the commits
 * since (issue 31: the archive pass asked git about every cold page on every run, and a backlog's later runs
 * have thousands). A commit that is not a descendant (an undo, a purge's rewrite) is read whole again.
 */
import { errorMessage } from '../core/errors.js';
import { PATH_LOG_ARGS, readPathLog, type HistoryEntry } from './audit.js';
import { GitCommandError, gitRunner } from './run.js';

interface Kept {
  commit: string;
  paths: Map<string, HistoryEntry[]>;
}

/** By the repository's root: one vault's map, replaced when the process moves to another. */
const kept = new Map<string, Kept>();
/** Few vaults live in one process; tests open many, so the oldest goes past this. */
const MAX_REPOS = 4;

/** Each path's commits reachable from `commit` (a full commit id) in the repository at `root`, newest first. */
export async function historiesAt(root: string, commit: string): Promise<ReadonlyMap<string, readonly HistoryEntry[]>> {
  const held = kept.get(root);
  if (held?.commit === commit) return held.paths;
  const git = gitRunner(root, ['core.quotepath=false']);
  let paths: Map<string, HistoryEntry[]>;
  if (held !== undefined && (await isAncestor(root, held.commit, commit))) {
    paths = held.paths;
    // Newest first: the newer commits go before what each path held.
    const newer = read(await git.raw([...PATH_LOG_ARGS, `${held.commit}..${commit}`]));
    for (const [rel, entries] of newer) paths.set(rel, [...entries, ...(paths.get(rel) ?? [])]);
  } else {
    let text: string;
    try {
      text = await git.raw([...PATH_LOG_ARGS, commit]);
    } catch (error) {
      if (!/does not have any commits|unknown revision/.test(errorMessage(error))) throw error;
      text = '';
    }
    paths = read(text);
  }
  kept.delete(root);
  if (kept.size >= MAX_REPOS) kept.delete(kept.keys().next().value!);
  kept.set(root, { commit, paths });
  return paths;
}

/**
 * What pathHistories answers for `paths` (their commits at `root`'s HEAD, newest first), from the kept walk:
 * pathHistories asks `git log -- <400 paths>` per chunk, each a walk of the whole history, and a backlog's late
 * runs ask it of thousands of pages (the owners of every older page, the leads and lines of every changed one).
 */
export async function historiesAtHead(root: string, paths: readonly string[]): Promise<Map<string, HistoryEntry[]>> {
  const out = new Map<string, HistoryEntry[]>(paths.map((p) => [p, []]));
  if (paths.length === 0) return out;
  const head = (await gitRunner(root).raw(['rev-parse', '--verify', '-q', 'HEAD']).catch(() => '')).trim();
  if (head === '') return out;
  const all = await historiesAt(root, head);
  for (const p of paths) out.set(p, [...(all.get(p) ?? [])]);
  return out;
}

function read(text: string): Map<string, HistoryEntry[]> {
  const paths = new Map<string, HistoryEntry[]>();
  readPathLog(text, (name, entry) => {
    const list = paths.get(name);
    if (list === undefined) paths.set(name, [entry]);
    else list.push(entry);
  });
  return paths;
}

async function isAncestor(root: string, older: string, newer: string): Promise<boolean> {
  try {
    await gitRunner(root).raw(['merge-base', '--is-ancestor', older, newer]);
    return true;
  } catch (error) {
    if (error instanceof GitCommandError) return false;
    throw error;
  }
}
