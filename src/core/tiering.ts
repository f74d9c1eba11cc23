/**
 * When V8 optimizes a function, for a long batch of projection in a short-lived process, and whether it does for a
 * command that ends within a second (`quickTiering`). By default V8 compiles a
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

/**
 * The flags that turn V8's optimizing compiler off and on again (`quickTiering`), for each measured V8. A CLI search
 * answered from an unchanged index ends a fraction of a second after it starts: the optimizing compiler spent ~10 ms
 * of CPU at a million facts compiling the freshness check's hot code (a stat per file, 5,000 of them) and the
 * compiled code had little left to run, so the search cost ~10% more CPU with it than without (docs/benchmarks.md).
 */
const QUICK_FLAGS: Readonly<Record<string, readonly [off: string, on: string]>> = {
  '11.3': ['--no-turbofan', '--turbofan'],
};

/**
 * A freshness check of at least this many files turns the optimizing compiler off, where the command allows it: at
 * 5,201 files (1M facts) the search took 0.90× the CPU and 0.85× the wall time without it, at ~550 (100k) 1.02–1.05×
 * the CPU and 1.08–1.15× the wall time (its main thread ran slower code the compiler would have made on its own
 * thread), so smaller vaults keep V8's default.
 */
export const QUICK_TIERING_FILES = 2_000;

let allowed = false;
let applied = false;
let quickAllowed = false;
/** The flag that turns the optimizing compiler on again, while `quickTiering` holds it off. */
let quickUntil: string | null = null;

const v8Minor = (v8Version: string): string => v8Version.split('.').slice(0, 2).join('.');

/** The flag `batchTiering` sets on this V8 (process.versions.v8), or null when it was not measured there. */
export function batchTieringFlag(v8Version: string): string | null {
  return FLAGS[v8Minor(v8Version)] ?? null;
}

/** The flags `quickTiering` sets and `endQuickTiering` undoes on this V8, or null when it was not measured there. */
export function quickTieringFlags(v8Version: string): readonly [off: string, on: string] | null {
  return QUICK_FLAGS[v8Minor(v8Version)] ?? null;
}

/** Lets `batchTiering` change this process's setting: called by the CLI, whose process it is. */
export function allowBatchTiering(): void {
  allowed = true;
}

/** Lets `quickTiering` change this process's setting: called by a CLI command that ends within a second (search). */
export function allowQuickTiering(): void {
  quickAllowed = true;
}

/**
 * Before a freshness check of many files (indexer/fresh.ts): no optimizing compiler, when the process allows it,
 * until `endQuickTiering`. Every index pass ends it first (indexer/reindex.ts): a pass can run for minutes.
 */
export async function quickTiering(): Promise<void> {
  const flags = quickTieringFlags(process.versions.v8);
  if (!allowed || !quickAllowed || quickUntil !== null || flags === null) return;
  quickUntil = flags[1];
  (await import('node:v8')).setFlagsFromString(flags[0]);
}

/** The optimizing compiler on again, if `quickTiering` turned it off. */
export async function endQuickTiering(): Promise<void> {
  const on = quickUntil;
  if (on === null) return;
  quickUntil = null;
  (await import('node:v8')).setFlagsFromString(on);
}

/** Before a long batch of projection: optimize later, once, when the process allows it. */
export async function batchTiering(): Promise<void> {
  if (!allowed || applied) return;
  applied = true;
  const flag = batchTieringFlag(process.versions.v8);
  if (flag !== null) (await import('node:v8')).setFlagsFromString(flag);
}
