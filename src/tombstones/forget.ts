/** `forget`: tombstone facts by id or by matching text, and commit the tombstones. */
import { VaultkeeperError, UsageError } from '../core/errors.js';
import { withWriteLock } from '../core/lock.js';
import { failpoint } from '../core/failpoint.js';
import { commitPaths } from '../git/audit.js';
import { clearIntent, finishInterrupted, writeAppendIntent } from '../git/intent.js';
import { listLogDates, readLog, type Fact } from '../logs/factlog.js';
import { containsWords, normalizeText } from '../text/normalize.js';
import type { VaultContext } from '../vault/context.js';
import { appendTombstones, readTombstones, TOMBSTONES_FILE, type Tombstone } from './tombstones.js';

export type ForgetTarget = { id: string } | { match: string };

export interface ForgottenFact {
  id: string;
  text: string;
  date: string;
  path: string;
  line: number;
}

export interface ForgetResult {
  tombstoned: ForgottenFact[];
  /** Facts that matched but were tombstoned before. */
  already: ForgottenFact[];
  commit: string | null;
}

/** Every fact in the vault's logs, oldest first. */
export async function allFacts(root: string): Promise<Fact[]> {
  const facts: Fact[] = [];
  for (const date of await listLogDates(root)) facts.push(...(await readLog(root, date)).facts);
  return facts;
}

export async function forget(ctx: VaultContext, target: ForgetTarget, options: { reason?: string | undefined; now?: Date } = {}): Promise<ForgetResult> {
  let wanted: (fact: Fact) => boolean;
  let described: string;
  if ('id' in target) {
    const id = target.id.trim().replace(/^\^/, '');
    if (id === '') throw new UsageError('forget needs a fact id, e.g. f-7k2m9q0a1b');
    wanted = (fact) => fact.id === id;
    described = `id ${id}`;
  } else {
    const needle = normalizeText(target.match);
    if (needle === '') throw new UsageError('--match needs some words to match', 'e.g. vaultkeeper forget --match "dark roast"');
    wanted = (fact) => containsWords(normalizeText(fact.text), needle);
    described = `text matching "${target.match}"`;
  }

  return withWriteLock(ctx.root, async (lock) => {
    await finishInterrupted(lock, ctx.config);
    const tombstones = await readTombstones(ctx.root);
    const matched = (await allFacts(ctx.root)).filter(wanted).map((fact) => ({
      id: fact.id,
      text: fact.text,
      date: fact.date,
      path: `logs/${fact.date}.md`,
      line: fact.line,
    }));
    if (matched.length === 0) {
      throw new VaultkeeperError('VK_NOT_FOUND', `no fact with ${described}`, {
        hint: 'find ids with `vaultkeeper search QUERY` or in the logs/ files; nothing was changed',
      });
    }
    const already = matched.filter((f) => tombstones.hasId(f.id));
    const fresh = matched.filter((f) => !tombstones.hasId(f.id));
    const at = (options.now ?? new Date()).toISOString();
    const entries: Tombstone[] = fresh.map((f) => ({
      id: f.id,
      text: normalizeText(f.text),
      at,
      ...(options.reason === undefined ? {} : { reason: options.reason }),
    }));
    // What a crash leaves uncommitted in the tombstones is this command's (intent.ts).
    if (entries.length > 0) await writeAppendIntent(lock, [TOMBSTONES_FILE]);
    await appendTombstones(lock, entries);
    failpoint('forget:after-append');
    const commit =
      entries.length === 0
        ? null
        : await commitPaths(lock, ctx.config, {
            op: 'forget',
            subject: `forget: ${fresh.length} ${fresh.length === 1 ? 'fact' : 'facts'} (${described})`,
            body: [`Reason: ${options.reason ?? 'none given'}`, '', ...fresh.map((f) => `- ${f.id} (${f.path}:${f.line}): ${f.text}`)].join('\n'),
            paths: [TOMBSTONES_FILE],
          });
    if (entries.length > 0) await clearIntent(lock);
    return { tombstoned: fresh, already, commit };
  });
}
