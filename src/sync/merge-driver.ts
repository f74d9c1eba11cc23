/**
 * git's merge driver for the files that only grow (`merge-file log|lines BASE OURS THEIRS`, set up by sync.ts): writes
 * the merge into OURS and exits 0, so these files never stop a merge.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';
import { mergeLines, mergeLog } from './merge-files.js';

export async function mergeFile(kind: string, base: string, ours: string, theirs: string): Promise<void> {
  const merge = kind === 'log' ? mergeLog : kind === 'lines' ? mergeLines : null;
  if (merge === null) throw new UsageError(`merge-file takes log or lines, not ${kind}`);
  const [b, o, t] = await Promise.all([base, ours, theirs].map((file) => readFile(file, 'utf8')));
  // git hands the driver its own temporary files in the work tree: written in place, as git expects.
  await writeFile(ours, merge(b!, o!, t!));
}
