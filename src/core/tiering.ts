/**
 * When V8 optimizes a function, for a long batch of projection in a short-lived process. By default V8 compiles a
 * hot function with its optimizing compiler early, then again each time input of a new shape reaches code it had
 * no feedback for ("insufficient type feedback" deopts): on a cold build of the Dendron notes that compiler ran
 * ~1 s of CPU on the other core, much of it for code thrown away, while the build ran for 0.9 s. Waiting four times
 * longer before optimizing cut the build's wall time by ~12% and its CPU by ~25%, and the 100k-fact rebuild's by
 * ~5% and ~10% (docs/benchmarks.md). A quick command gains nothing (a CLI search was ~6% slower with it), so only a
 * pass that projects much asks for it (indexer/reindex.ts).
 *
 * The setting is the whole process's, so it is the CLI's choice (`allowBatchTiering`), never a library host's.
 * Only the V8 versions it was measured on get it: another's flags may differ, and V8 prints an error for a flag
 * it does not know.
 */

/** The flag for each measured V8 (major.minor): Node 20's counts a function's work, Node 22's its calls. */
const FLAGS: Readonly<Record<string, string>> = {
  '11.3': '--interrupt-budget=270336', // 4 × its default of 66 KB of bytecode run
  '12.4': '--invocation-count-for-turbofan=12000', // 4 × its default of 3,000 calls
};

/**
 * A pass projecting at least this many bytes of files asks for it: the Dendron notes are 2.2 MB, the 100k-fact
 * vault ~20 MB; a `remember` or an update of a few notes projects kilobytes.
 */
export const BATCH_TIERING_BYTES = 1_000_000;

let allowed = false;
let applied = false;

/** The flag `batchTiering` sets on this V8 (process.versions.v8), or null when it was not measured there. */
export function batchTieringFlag(v8Version: string): string | null {
  return FLAGS[v8Version.split('.').slice(0, 2).join('.')] ?? null;
}

/** Lets `batchTiering` change this process's setting: called by the CLI, whose process it is. */
export function allowBatchTiering(): void {
  allowed = true;
}

/** Before a long batch of projection: optimize later, once, when the process allows it. */
export async function batchTiering(): Promise<void> {
  if (!allowed || applied) return;
  applied = true;
  const flag = batchTieringFlag(process.versions.v8);
  if (flag !== null) (await import('node:v8')).setFlagsFromString(flag);
}
