/**
 * Rewrites the vault's git history so that no object holds a purged text: `git fast-export` of the branches and
 * tags, each blob and commit message passed through the purge's scrubber, `git fast-import --force` back; then
 * every other ref that could keep an old object alive (remote-tracking refs, the stash, refs/original) is
 * deleted, the reflogs expired and the unreachable objects pruned. A remote keeps the old history until it is
 * pushed to with --force: the result lists the remote refs removed so the caller can say so.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError } from '../core/errors.js';
import { failpoint } from '../core/failpoint.js';
import { gitRunner } from '../git/run.js';
import { removeScratchTrees } from '../git/worktree.js';
import { markPushDue } from './push-due.js';
import type { Scrubber } from './scrub.js';

export interface HistoryRewrite {
  /** Blobs and commit messages the scrubber changed. */
  changed: number;
  /** Remote-tracking refs deleted (their remote still holds the old history). */
  remoteRefs: string[];
  /** The remotes this clone has: the next `sync` force-pushes to them (push-due.ts). */
  remotes: string[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Each `data N` block of a fast-export stream through `scrub` (binary blobs as they are). */
export function scrubStream(stream: Buffer, scrub: Scrubber): { stream: Buffer; changed: number } {
  const out: Buffer[] = [];
  let changed = 0;
  let at = 0;
  while (at < stream.length) {
    let end = stream.indexOf(10, at);
    if (end < 0) end = stream.length;
    const line = stream.subarray(at, end).toString('latin1');
    if (!line.startsWith('data ')) {
      out.push(stream.subarray(at, Math.min(end + 1, stream.length)));
      at = end + 1;
      continue;
    }
    const size = Number(line.slice(5));
    if (!Number.isInteger(size) || size < 0) throw new VaultkeeperError('VK_PURGE_HISTORY', `git fast-export wrote a data line purge cannot read: ${line.slice(0, 40)}`);
    const data = stream.subarray(end + 1, end + 1 + size);
    let next: Buffer = data;
    try {
      const text = utf8.decode(data);
      const scrubbed = scrub(text);
      if (scrubbed !== text) {
        next = Buffer.from(scrubbed, 'utf8');
        changed++;
      }
    } catch {
      // Not UTF-8 (an image, an attachment): no fact text to erase there.
    }
    out.push(Buffer.from(`data ${next.length}\n`, 'latin1'), next);
    at = end + 1 + size;
  }
  return { stream: Buffer.concat(out), changed };
}

function gitPipe(root: string, args: readonly string[], input: Buffer | null): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...args], { cwd: root, stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new VaultkeeperError('VK_PURGE_HISTORY', `git ${args[0]} failed while rewriting the history: ${Buffer.concat(err).toString('utf8').trim().split('\n')[0] ?? ''}`));
    });
    if (input !== null && child.stdin !== null) child.stdin.end(input);
  });
}

export async function rewriteHistory(root: string, scrub: Scrubber, now: Date): Promise<HistoryRewrite> {
  const git = gitRunner(root);
  // The dream's scratch trees go (the last run's is kept for the next): their HEADs and indexes would pin old
  // commits, their files hold the text.
  await removeScratchTrees(root);
  const listed = (await git.raw(['for-each-ref', '--format=%(refname) %(objectname)'])).split('\n').filter((r) => r !== '');
  const refs = listed.map((line) => line.split(' ')[0]!);
  // Before the tracking refs go: the heads each remote had, the lease of the force push sync makes (push-due.ts).
  const remotes = (await git.raw(['remote'])).split('\n').map((r) => r.trim()).filter((r) => r !== '');
  const heads: Record<string, Record<string, string | null>> = Object.fromEntries(remotes.map((r) => [r, {}]));
  for (const line of listed) {
    const [ref, sha] = line.split(' ');
    const match = /^refs\/remotes\/([^/]+)\/(.+)$/.exec(ref!);
    if (match !== null && match[2] !== 'HEAD' && heads[match[1]!] !== undefined) heads[match[1]!]![match[2]!] = sha!;
  }
  await markPushDue(root, heads, now);
  const kept = refs.filter((r) => r.startsWith('refs/heads/') || r.startsWith('refs/tags/'));
  let changed = 0;
  if (kept.length > 0) {
    const exported = await gitPipe(root, ['fast-export', '--signed-tags=strip', '--tag-of-filtered-object=drop', '--reencode=yes', '--use-done-feature', ...kept], null);
    const scrubbed = scrubStream(exported, scrub);
    changed = scrubbed.changed;
    await gitPipe(root, ['fast-import', '--force', '--quiet'], scrubbed.stream);
    failpoint('purge:after-import');
  }
  // Everything else would keep an old object reachable.
  const remoteRefs = refs.filter((r) => r.startsWith('refs/remotes/'));
  for (const ref of refs.filter((r) => !kept.includes(r))) await git.raw(['update-ref', '-d', ref]);
  for (const name of ['ORIG_HEAD', 'FETCH_HEAD', 'MERGE_HEAD', 'MERGE_MSG', 'SQUASH_MSG', 'COMMIT_EDITMSG']) await rm(path.join(root, '.git', name), { force: true });
  // git's index still names the old blobs of the files the rewrite changed; the working tree is already scrubbed.
  await git.raw(['reset', '--quiet']);
  await git.raw(['reflog', 'expire', '--expire=now', '--expire-unreachable=now', '--all']);
  failpoint('purge:before-gc');
  await git.raw(['gc', '--prune=now', '--quiet']);
  return { changed, remoteRefs, remotes };
}
