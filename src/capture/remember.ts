/** Capturing facts: validate, append one batch per date to the logs, commit. */
import { isValidDate, localStamp } from '../core/clock.js';
import { errorMessage, UsageError, VaultkeeperError } from '../core/errors.js';
import { failpoint } from '../core/failpoint.js';
import { readJournal } from '../dream/journal.js';
import { withWriteLock, type WriteLock } from '../core/lock.js';
import { clearIntent, finishInterrupted, writeAppendIntent } from '../git/intent.js';
import { commitPaths } from '../git/audit.js';
import { appendBatch, canonicalFact, formatFactLine, logRelPath, type AppendedFact, type CanonicalFact, type FactInput } from '../logs/factlog.js';
import { applySecretsPolicy, applyTagsPolicy, SecretRefusedError } from '../secrets/policy.js';
import { readTombstones } from '../tombstones/tombstones.js';
import type { VaultContext } from '../vault/context.js';

export interface RememberOptions {
  source?: string | undefined;
  now?: Date;
  /**
   * Under `capture.secrets: refuse`, leave out a fact holding a secret and store the rest (listed in `refused`),
   * rather than failing the batch: for extraction from transcripts, where no person is there to rephrase.
   */
  skipRefused?: boolean;
  /** The commit's operation and message, when the write is part of a larger one (an import); default: remember's. */
  commit?: { op: string; subject: string; body: string };
  /**
   * Writes more files under the same lock, after the facts and before the commit, and returns their vault-relative
   * paths, which the same commit records (an import's adopted notes). With it, an empty `inputs` is allowed.
   */
  alsoWrite?: (lock: WriteLock) => Promise<string[]>;
}

/** A fact stored with its secrets replaced by markers (`[redacted: password]`). */
export interface RedactedSecret {
  id: string;
  /** What was replaced, e.g. ["pin"]; never the secret. */
  kinds: string[];
}

export interface RememberResult {
  facts: AppendedFact[];
  commit: string | null;
  /**
   * Set when the facts are stored in the logs but git could not commit them (a full disk, a stale
   * .git/index.lock): the facts count as remembered, so a retry must not repeat them; the next write to
   * that log (or the next dream's snapshot) commits them.
   */
  warning?: string;
  /** Dates written at or below the dream's watermark, or into a skipped day: the next dream places these facts (DESIGN §7). */
  late: string[];
  /** Says so in one sentence, when `late` is not empty. */
  note?: string;
  /** Ids of the facts appended that a tombstone hides (they repeat a forgotten text): stored, never shown. */
  hidden: string[];
  /** Says so in one sentence, when `hidden` is not empty. */
  hiddenNote?: string;
  /** Facts stored with a secret replaced by a marker (capture.secrets: redact). */
  redacted: RedactedSecret[];
  /** Says so in one sentence, when `redacted` is not empty. */
  redactedNote?: string;
  /** Places in the batch (from 0) of facts left out for holding a secret (capture.secrets: refuse with `skipRefused`). */
  refused: number[];
}

export async function remember(ctx: VaultContext, given: readonly FactInput[], options: RememberOptions = {}): Promise<RememberResult> {
  if (given.length === 0 && options.alsoWrite === undefined) throw new UsageError('nothing to remember: no facts were given');
  let inputs = given;
  const now = options.now ?? new Date();
  const stamp = localStamp(now, ctx.timeZone);
  const source = options.source ?? ctx.config.capture.default_source;
  const screened = await screenSecrets(ctx, inputs, options.skipRefused ?? false);
  if (screened.inputs.length === 0 && given.length > 0) return { facts: [], commit: null, late: [], hidden: [], redacted: [], refused: screened.refused };
  inputs = screened.inputs;

  // Validate everything before writing anything: a bad line in a batch writes nothing.
  // One batch per (date, time, source): a fact that names its own time or source gets its own header.
  const byBatch = new Map<string, { date: string; time: string; source: string; facts: CanonicalFact[] }>();
  const kindsOf = new Map<CanonicalFact, string[]>();
  inputs.forEach((input, index) => {
    const date = input.date ?? stamp.date;
    const where = inputs.length > 1 ? ` (fact ${index + 1})` : '';
    if (!isValidDate(date)) {
      throw new UsageError(`invalid date '${date}'${where}`, 'write dates as YYYY-MM-DD, e.g. 2026-06-09');
    }
    const time = input.time ?? stamp.time;
    if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(time)) throw new UsageError(`invalid time '${time}'${where}`, 'write times as HH:MM, e.g. 14:32');
    let fact: CanonicalFact;
    try {
      fact = canonicalFact(input);
    } catch (error) {
      if (error instanceof UsageError && inputs.length > 1) throw new UsageError(`fact ${index + 1}: ${error.message}`, error.hint);
      throw error;
    }
    const kinds = screened.redacted.find((r) => r.index === index)?.kinds;
    if (kinds !== undefined) kindsOf.set(fact, kinds);
    const batchSource = input.source ?? source;
    const key = `${date}\u0000${time}\u0000${batchSource}`;
    const batch = byBatch.get(key) ?? { date, time, source: batchSource, facts: [] };
    batch.facts.push(fact);
    byBatch.set(key, batch);
  });

  return withWriteLock(ctx.root, async (lock) => {
    await finishInterrupted(lock, ctx.config);
    // In the order the facts came (an import of an export keeps the file's order, whatever the batches' times).
    const batches = [...byBatch.values()];
    const allDates = [...new Set(batches.map((b) => b.date))];
    // What a crash leaves uncommitted in these logs is this command's, not lines a person typed (intent.ts).
    if (allDates.length > 0) await writeAppendIntent(lock, allDates.map(logRelPath));
    const facts: AppendedFact[] = [];
    const redacted: RedactedSecret[] = [];
    const dates: string[] = [];
    let failed: unknown = null;
    for (const batch of batches) {
      try {
        const appended = await appendBatch(lock, batch.date, batch.time, batch.source, batch.facts);
        facts.push(...appended);
        // appendBatch returns one fact per input, in order.
        batch.facts.forEach((fact, i) => {
          const kinds = kindsOf.get(fact);
          const stored = appended[i];
          if (kinds !== undefined && stored !== undefined) redacted.push({ id: stored.id, kinds });
        });
        if (!dates.includes(batch.date)) dates.push(batch.date);
      } catch (error) {
        // Days already appended stay stored and are committed below; the error then says so.
        if (facts.length === 0) {
          await clearIntent(lock);
          throw error;
        }
        failed = error;
        break;
      }
    }
    failpoint('remember:after-append');
    const written = failed === null && options.alsoWrite !== undefined ? await options.alsoWrite(lock) : [];
    const where = dates.length === 1 ? logRelPath(dates[0]!) : `${dates.length} days (${dates[0]}..${dates.at(-1)})`;
    const shown = facts.slice(0, 20).map((f) => formatFactLine(f, f.id));
    if (facts.length > shown.length) shown.push(`… and ${facts.length - shown.length} more`);
    let commit: string | null = null;
    let warning: string | undefined;
    try {
      const paths = [...dates.map(logRelPath), ...written];
      const message = options.commit ?? {
        op: 'remember',
        subject: `remember: ${facts.length} ${facts.length === 1 ? 'fact' : 'facts'} in ${where}`,
        body: `Appended by vaultkeeper remember from source "${facts[0]?.source ?? source}".`,
      };
      if (paths.length > 0) {
        const body = shown.length === 0 ? message.body : `${message.body}\n\n${shown.join('\n')}`;
        commit = await commitPaths(lock, ctx.config, { ...message, body, paths });
      }
      await clearIntent(lock);
    } catch (error) {
      // The intent stays: the next writer commits these lines as this command's recovery.
      if (!(error instanceof VaultkeeperError) || failed !== null) throw error;
      warning = `stored in ${where} but not committed (${error.message}${error.hint ? `; ${error.hint}` : ''}); do not repeat the fact: the next write to that log, or the next dream, commits it`;
    }
    if (failed !== null) {
      throw new VaultkeeperError('VK_PARTLY_STORED', `${facts.length} of ${inputs.length} facts were stored (in ${where}); the rest were not: ${errorMessage(failed)}`, {
        hint: 'remember only the facts not listed in the log, after fixing the cause',
        cause: failed,
      });
    }
    const placement = await latePlacement(ctx.root, facts);
    return {
      facts,
      commit,
      ...(warning === undefined ? {} : { warning }),
      ...placement,
      ...(await hiddenFacts(ctx.root, facts)),
      redacted,
      ...(redacted.length === 0 ? {} : { redactedNote: redactedNote(redacted) }),
      refused: screened.refused,
    };
  });
}

/**
 * Facts written into a date the dream has already consolidated, or skipped, wait for the next dream to be
 * placed on a page (a skipped day's own facts wait for `dream --retry-skipped`; only a skip line from before
 * `log_facts=` cannot tell a later fact apart, so the whole day waits for the retry).
 */
async function latePlacement(root: string, facts: readonly AppendedFact[]): Promise<{ late: string[]; note?: string }> {
  const journal = await readJournal(root);
  const dates = [...new Set(facts.map((f) => f.date))];
  const skipped = dates.filter((date) => journal.skipped.has(date));
  const late = dates.filter((date) => (journal.skipped.has(date) ? journal.skips.get(date)?.logFacts !== null : journal.watermark !== null && date <= journal.watermark));
  const notes: string[] = [];
  const consolidated = late.filter((date) => !journal.skipped.has(date));
  if (consolidated.length > 0) {
    const count = facts.filter((f) => consolidated.includes(f.date)).length;
    const which = consolidated.length === 1 ? `${consolidated[0]} is` : `${consolidated.join(', ')} are`;
    const what = count === 1 ? 'this fact stays searchable, and the next dream will place it' : 'these facts stay searchable, and the next dream will place them';
    notes.push(`${which} at or below the dream's watermark (${journal.watermark}): ${what} on a page`);
  }
  if (skipped.length > 0) {
    const count = facts.filter((f) => skipped.includes(f.date)).length;
    const which = skipped.length === 1 ? `${skipped[0]} was` : `${skipped.join(', ')} were`;
    const pending = skipped.filter((date) => late.includes(date));
    const what =
      pending.length === skipped.length
        ? `${count === 1 ? 'this fact is' : 'these facts are'} pending like any other, and the next dream will place ${count === 1 ? 'it' : 'them'} on a page`
        : `${count === 1 ? 'this fact stays' : 'these facts stay'} searchable and ${count === 1 ? 'goes' : 'go'} with the day`;
    notes.push(`${which} skipped by the dream (its earlier facts wait for \`vaultkeeper dream --retry-skipped\`): ${what}`);
  }
  return notes.length === 0 ? { late } : { late, note: notes.join('; ') };
}

/**
 * Facts that repeat a forgotten text: the log keeps them (logs are append-only truth), but the tombstone hides
 * them from search, pages and MEMORY.md, so the person is told rather than left to wonder why they never show.
 */
async function hiddenFacts(root: string, facts: readonly AppendedFact[]): Promise<{ hidden: string[]; hiddenNote?: string }> {
  const tombstones = await readTombstones(root);
  const hidden = facts.filter((f) => tombstones.hasId(f.id) || tombstones.repeats(f.text)).map((f) => f.id);
  if (hidden.length === 0) return { hidden };
  const what = hidden.length === 1 ? `${hidden[0]} repeats a forgotten fact` : `${hidden.length} facts (${hidden.join(', ')}) repeat forgotten facts`;
  return { hidden, hiddenNote: `${what}: stored in the log, but a tombstone hides it from search, pages and MEMORY.md` };
}

/**
 * Every write path comes through here (remember, ingest and the session watcher, MCP): a secret in a fact is
 * replaced by a marker or the fact refused (capture.secrets), before anything is validated or written (DESIGN §9).
 */
async function screenSecrets(
  ctx: VaultContext,
  inputs: readonly FactInput[],
  skipRefused: boolean,
): Promise<{ inputs: FactInput[]; redacted: { index: number; kinds: string[] }[]; refused: number[] }> {
  const policy = ctx.config.capture.secrets;
  const kept: FactInput[] = [];
  const redacted: { index: number; kinds: string[] }[] = [];
  const refused: number[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      const { texts, redacted: found } = await applySecretsPolicy([input.text], policy);
      const tags = await applyTagsPolicy(input.tags ?? [], policy);
      const kinds = [...new Set([...(found[0]?.kinds ?? []), ...tags.kinds])];
      if (kinds.length > 0) redacted.push({ index: kept.length, kinds });
      kept.push({ ...input, text: texts[0]!, ...(input.tags === undefined ? {} : { tags: tags.tags }) });
    } catch (error) {
      if (!(error instanceof SecretRefusedError)) throw error;
      if (!skipRefused) throw new SecretRefusedError(index, inputs.length, error.kinds);
      refused.push(index);
    }
  }
  return { inputs: kept, redacted, refused };
}

function redactedNote(redacted: readonly RedactedSecret[]): string {
  const kinds = [...new Set(redacted.flatMap((r) => r.kinds))].join(', ');
  const which = redacted.length === 1 ? `${redacted[0]!.id} was` : `${redacted.length} facts (${redacted.map((r) => r.id).join(', ')}) were`;
  return `${which} stored with a secret replaced by a marker (${kinds}): the secret itself was not written`;
}
