/**
 * The dream's gate (DESIGN §7) on an injected clock: which log days are pending, and when a run opens
 * — backlog at once, else after min_hours and with min_facts pending; --force skips the gate. Then the
 * same decisions through `vault.dream({ now })` on a real vault: a gated run changes nothing.
 */
import { appendFile, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../src/core/config.js';
import { decide, pendingDates, retryBatch, type Pending } from '../../src/dream/gate.js';
import { parseJournal } from '../../src/dream/journal.js';
import type { DreamResult } from '../../src/dream/runner.js';
import { backOff, emptyDreamState, retryDelayMs, succeeded, type DreamState } from '../../src/dream/state.js';
import { listWikiPages } from '../../src/pages/discover.js';
import { parseTombstones } from '../../src/tombstones/tombstones.js';
import type { Vault } from '../../src/vault/vault.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git } from '../helpers/vault.js';

const tempDir = useTempDir();

const DEFAULTS: Config['dream'] = ConfigSchema.parse({}).dream;
const NOW = new Date('2026-06-09T10:00:00Z');
const HOUR = 3_600_000;

function state(lastAttempt: Date | null = null): DreamState {
  return { ...emptyDreamState(), last_attempt_at: lastAttempt?.toISOString() ?? null, last_ok_at: lastAttempt?.toISOString() ?? null };
}

/** `count` consecutive dates from `first`. */
function dates(first: string, count: number): string[] {
  const start = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10));
}

const pending = (days: string[], facts: number): Pending => ({ dates: days, facts });

describe('decide', () => {
  it('is a noop with no pending days, forced or not', () => {
    for (const force of [false, true]) {
      const decision = decide(pending([], 0), state(), DEFAULTS, NOW, force);
      expect(decision).toEqual({ open: false, status: 'noop', reason: expect.stringMatching(/no pending/) });
    }
  });

  it('has the documented defaults', () => {
    expect(DEFAULTS).toMatchObject({ min_hours: 24, min_facts: 20, max_days: 14, max_retries: 3, timeout_s: 600 });
  });

  it('opens at once for a backlog (more pending days than max_days), with the oldest max_days as the batch', () => {
    const days = dates('2026-05-01', 15);
    // A run a minute ago and a single pending fact would close both other gates.
    const decision = decide(pending(days, 1), state(new Date(NOW.getTime() - 60_000)), DEFAULTS, NOW, false);
    expect(decision).toEqual({ open: true, why: 'backlog', batch: days.slice(0, 14) });
    // A 40-day backlog is taken 14 days at a time, oldest first.
    const long = dates('2026-04-01', 40);
    expect(decide(pending(long, 0), state(NOW), DEFAULTS, NOW, false)).toEqual({ open: true, why: 'backlog', batch: long.slice(0, 14) });
  });

  it('does not count exactly max_days pending days as a backlog', () => {
    const decision = decide(pending(dates('2026-05-01', 14), 100), state(new Date(NOW.getTime() - HOUR)), DEFAULTS, NOW, false);
    expect(decision).toMatchObject({ open: false, status: 'gated', gate: 'min_hours' });
  });

  it('waits min_hours after the last attempt and says when the gate opens', () => {
    const last = new Date('2026-06-09T02:30:00Z');
    const opensAt = '2026-06-10T02:30:00.000Z';
    const days = dates('2026-06-06', 3);
    const before = decide(pending(days, 50), state(last), DEFAULTS, new Date(Date.parse(opensAt) - 1), false);
    expect(before).toEqual({ open: false, status: 'gated', gate: 'min_hours', opensAt, reason: expect.stringContaining(opensAt) });
    expect(before.open === false && before.reason).toMatch(/less than 24 h ago/);
    expect(decide(pending(days, 50), state(last), DEFAULTS, new Date(opensAt), false)).toEqual({ open: true, why: 'due', batch: days });
    // The hours come from the config.
    const six = { ...DEFAULTS, min_hours: 6 };
    expect(decide(pending(days, 50), state(last), six, new Date('2026-06-09T08:29:59Z'), false)).toMatchObject({ gate: 'min_hours', opensAt: '2026-06-09T08:30:00.000Z' });
    expect(decide(pending(days, 50), state(last), six, new Date('2026-06-09T08:30:00Z'), false)).toMatchObject({ open: true, why: 'due' });
  });

  it('needs no waiting before the first attempt', () => {
    expect(decide(pending(['2026-06-08'], 20), state(null), DEFAULTS, NOW, false)).toEqual({ open: true, why: 'due', batch: ['2026-06-08'] });
  });

  it('waits for min_facts pending facts and says how many more are needed', () => {
    const days = dates('2026-06-06', 3);
    const decision = decide(pending(days, 5), state(null), DEFAULTS, NOW, false);
    expect(decision).toEqual({ open: false, status: 'gated', gate: 'min_facts', opensAt: null, reason: expect.stringContaining('15 more') });
    expect(decision.open === false && decision.reason).toMatch(/5 pending facts, fewer than min_facts 20/);
    expect(decide(pending(days, 19), state(null), DEFAULTS, NOW, false)).toMatchObject({ gate: 'min_facts', reason: expect.stringContaining('1 more') });
    expect(decide(pending(days, 20), state(null), DEFAULTS, NOW, false)).toEqual({ open: true, why: 'due', batch: days });
    expect(decide(pending(days, 0), state(null), { ...DEFAULTS, min_facts: 0 }, NOW, false)).toMatchObject({ open: true, why: 'due' });
  });

  it('reports min_hours before min_facts when both are closed', () => {
    expect(decide(pending(['2026-06-08'], 1), state(new Date(NOW.getTime() - HOUR)), DEFAULTS, NOW, false)).toMatchObject({ gate: 'min_hours' });
  });

  it('opens when forced, whatever the gates say, still with the oldest max_days', () => {
    const recent = state(new Date(NOW.getTime() - 60_000));
    expect(decide(pending(['2026-06-08'], 1), recent, DEFAULTS, NOW, true)).toEqual({ open: true, why: 'forced', batch: ['2026-06-08'] });
    const days = dates('2026-05-01', 20);
    expect(decide(pending(days, 0), recent, DEFAULTS, NOW, true)).toEqual({ open: true, why: 'forced', batch: days.slice(0, 14) });
  });
});

describe('the backoff after a failed or waiting run', () => {
  const MIN = 60_000;

  it('doubles from 5 min up to 4 h', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(n) / MIN)).toEqual([5, 10, 20, 40, 80, 160, 240, 240]);
  });

  it('holds even a backlog until it ends, then opens (not min_hours, not min_facts); a run that goes through ends it', () => {
    const failed = { ...state(NOW), last_status: 'failed' };
    backOff(failed, NOW);
    expect(failed).toMatchObject({ retry_count: 1, retry_at: new Date(NOW.getTime() + 5 * MIN).toISOString() });
    const backlog = dates('2026-05-01', 20);
    expect(decide(pending(backlog, 100), failed, DEFAULTS, new Date(NOW.getTime() + 4 * MIN), false)).toEqual({
      open: false,
      status: 'gated',
      gate: 'backoff',
      opensAt: failed.retry_at,
      reason: `the last run failed; it is tried again at ${failed.retry_at} (backoff after the first such run)`,
    });
    // Forced, it runs at once.
    expect(decide(pending(['2026-06-08'], 1), failed, DEFAULTS, NOW, true)).toMatchObject({ open: true, why: 'forced' });
    // Once it ends the run is retried, though the last attempt was 5 minutes ago and 1 fact is pending.
    expect(decide(pending(['2026-06-08'], 1), failed, DEFAULTS, new Date(NOW.getTime() + 5 * MIN), false)).toEqual({ open: true, why: 'retry', batch: ['2026-06-08'] });

    const waiting = { ...failed, last_status: 'waiting' };
    backOff(waiting, NOW);
    expect(waiting.retry_count).toBe(2);
    const held = decide(pending(['2026-06-08'], 50), waiting, DEFAULTS, NOW, false);
    expect(held.open === false && held.reason).toBe(`the last run waited for the LLM; it is tried again at ${new Date(NOW.getTime() + 10 * MIN).toISOString()} (backoff after 2 such runs in a row)`);
    // A daily cap's reset, when later than the backoff, is when the next try is due.
    const capped = { ...state(NOW) };
    backOff(capped, NOW, new Date('2026-06-10T00:00:00Z'));
    expect(capped.retry_at).toBe('2026-06-10T00:00:00.000Z');

    succeeded(waiting, NOW);
    expect(waiting).toMatchObject({ last_status: 'ok', retry_at: null, retry_count: 0, last_ok_at: NOW.toISOString() });
  });

  it('counts min_hours from the last run that went through, not from a failed or waiting attempt', () => {
    const last = new Date(NOW.getTime() - 25 * HOUR);
    const after = { ...state(last), last_attempt_at: new Date(NOW.getTime() - HOUR).toISOString(), last_status: 'failed' };
    expect(decide(pending(['2026-06-08'], 50), after, DEFAULTS, NOW, false)).toMatchObject({ open: true, why: 'due' });
    // A state file from before last_ok_at: its last attempt counts when that went through, else nothing does.
    const legacy = { ...emptyDreamState(), last_attempt_at: new Date(NOW.getTime() - HOUR).toISOString(), last_status: 'ok' };
    expect(decide(pending(['2026-06-08'], 50), legacy, DEFAULTS, NOW, false)).toMatchObject({ open: false, gate: 'min_hours' });
    expect(decide(pending(['2026-06-08'], 50), { ...legacy, last_status: 'failed' }, DEFAULTS, NOW, false)).toMatchObject({ open: true, why: 'due' });
  });
});

describe('the journal: skipped days, their late facts and their retry', () => {
  const OLD = '- 2026-06-05T03:00:00Z · run r-2 · gave up on 2026-06-03..2026-06-03 after 3 tries · skipped=2026-06-03 · watermark=2026-06-03\n';
  const NEW = '- 2026-06-06T03:00:00Z · run r-3 · gave up on 2026-06-04..2026-06-04 after 2 tries · skipped=2026-06-04 · watermark=2026-06-04 · check=safety · log_facts=1\n';
  const RETRIED = '- 2026-06-07T03:00:00Z · run r-4 · consolidated 2026-06-03..2026-06-03 · retried=2026-06-03 · watermark=2026-06-04 · pages +1 ~0 · facts 1\n';

  it('reads an old skip line as before, the new tokens, and a retried= after a skip in order', () => {
    const old = parseJournal(OLD);
    expect(old.watermark).toBe('2026-06-03');
    expect([...old.skipped]).toEqual(['2026-06-03']);
    expect(old.skips.get('2026-06-03')).toEqual({ date: '2026-06-03', at: '2026-06-05T03:00:00Z', run: 'r-2', tries: 3, check: null, logFacts: null });
    const both = parseJournal(OLD + NEW);
    expect(both.skips.get('2026-06-04')).toMatchObject({ tries: 2, check: 'safety', logFacts: 1 });
    const retried = parseJournal(OLD + NEW + RETRIED);
    expect([...retried.skipped]).toEqual(['2026-06-04']);
    expect(retried.watermark).toBe('2026-06-04');
    // Skipped again after its retry: skipped.
    expect([...parseJournal(OLD + RETRIED + OLD.replace('2026-06-05T', '2026-06-08T')).skipped]).toEqual(['2026-06-03']);
  });

  it('holds a skipped day for the facts written after it was skipped, never for its own; an old skip line holds none', async () => {
    const root = await tempDir();
    await writeTree(root, {
      'logs/2026-06-03.md': log('2026-06-03', ['- [fact] Skipped with the day ^f-ddddddddd1', '- [fact] Written after, but the old line cannot tell ^f-ddddddddd2']),
      'logs/2026-06-04.md': log('2026-06-04', ['- [fact] Skipped with the day ^f-ddddddddd3', '- [fact] Written after the skip ^f-ddddddddd4', '- [fact] Written after, then placed ^f-ddddddddd5']),
      '2_Areas/Facts.md': '# Facts\n\n- Placed [[2026-06-04#^f-ddddddddd5]]\n',
    });
    expect(await pendingDates(root, parseJournal(OLD + NEW), '2026-06-09', parseTombstones(''))).toEqual({ dates: ['2026-06-04'], facts: 1 });
  });

  it('retries the least retried skipped days first, then the oldest, at most max_days (fewer after a failed retry)', () => {
    const journal = parseJournal(['2026-06-01', '2026-06-02', '2026-06-03'].map((d) => `- note · skipped=${d}\n`).join(''));
    expect(retryBatch(journal, emptyDreamState(), DEFAULTS)).toEqual(['2026-06-01', '2026-06-02', '2026-06-03']);
    const tried = { ...emptyDreamState(), skip_retries: { '2026-06-01': 2 } };
    expect(retryBatch(journal, tried, { ...DEFAULTS, max_days: 2 })).toEqual(['2026-06-02', '2026-06-03']);
    expect(retryBatch(journal, { ...tried, skip_split: 1 }, DEFAULTS)).toEqual(['2026-06-02']);
    expect(retryBatch(parseJournal(''), emptyDreamState(), DEFAULTS)).toEqual([]);
  });
});

const log = (date: string, lines: string[]): string => `# ${date}\n\n## 09:00 · cli\n${lines.map((l) => `${l}\n`).join('')}`;

describe('pendingDates', () => {
  const LOGS = {
    'logs/2026-06-01.md': log('2026-06-01', ['- [fact] Lives in Lisbon ^f-aaaaaaaaa1']),
    'logs/2026-06-02.md': log('2026-06-02', ['- [fact] Plays the cello ^f-aaaaaaaaa2']),
    'logs/2026-06-03.md': log('2026-06-03', ['- [fact] Skipped day fact ^f-aaaaaaaaa3']),
    'logs/2026-06-04.md': log('2026-06-04', ['- [fact] Runs on Sundays ^f-aaaaaaaaa4', '- [fact] Shared a bank PIN 4417 ^f-aaaaaaaaa5', '- [fact] Again: shared a bank PIN 4417 by mistake ^f-aaaaaaaaa6']),
    'logs/2026-06-05.md': log('2026-06-05', ['- [preference] Likes green tea #tea ^f-aaaaaaaaa7', 'Free text, not a fact']),
    'logs/2026-06-09.md': log('2026-06-09', ['- [fact] Written today ^f-aaaaaaaaa8']),
    'logs/2026-06-10.md': log('2026-06-10', ['- [fact] Dated tomorrow ^f-aaaaaaaaa9']),
  };
  const TOMBSTONES = `${JSON.stringify({ id: 'f-aaaaaaaaa5', text: 'shared a bank pin 4417', at: '2026-06-05T00:00:00Z' })}\n`;
  /** The page the run that consolidated 06-01..06-02 wrote: it cites both days' facts. */
  const PLACED = { '2_Areas/Facts.md': '# Facts\n\n- Lives in Lisbon [[2026-06-01#^f-aaaaaaaaa1]]\n- Plays the cello [[2026-06-02#^f-aaaaaaaaa2]]\n' };

  it('holds the log days after the watermark and before today, skipped days left out, and counts their facts but not forgotten ones', async () => {
    const root = await tempDir();
    await writeTree(root, { ...LOGS, ...PLACED });
    const journal = parseJournal(
      '# Dream journal\n\n- 2026-06-03T03:00:00Z · run r-1 · consolidated 2026-06-01..2026-06-02 · watermark=2026-06-02 · pages +1 ~0 · facts 2\n' +
        '- 2026-06-05T03:00:00Z · run r-2 · gave up on 2026-06-03..2026-06-03 after 3 tries · skipped=2026-06-03 · watermark=2026-06-03\n',
    );
    const result = await pendingDates(root, journal, '2026-06-09', parseTombstones(TOMBSTONES));
    // 06-04 has three facts: one tombstoned by id, one that repeats the tombstoned text.
    expect(result).toEqual({ dates: ['2026-06-04', '2026-06-05'], facts: 2 });
  });

  it("never holds today's log or a later one", async () => {
    const root = await tempDir();
    await writeTree(root, { 'logs/2026-06-09.md': LOGS['logs/2026-06-09.md'], 'logs/2026-06-10.md': LOGS['logs/2026-06-10.md'] });
    const result = await pendingDates(root, parseJournal(''), '2026-06-09', parseTombstones(''));
    expect(result).toEqual({ dates: [], facts: 0 });
    expect(decide(result, state(), DEFAULTS, NOW, true)).toMatchObject({ open: false, status: 'noop' });
    // The next morning, yesterday's log is pending.
    expect(await pendingDates(root, parseJournal(''), '2026-06-10', parseTombstones(''))).toEqual({ dates: ['2026-06-09'], facts: 1 });
  });

  it('holds every day before today when nothing was consolidated yet', async () => {
    const root = await tempDir();
    await writeTree(root, LOGS);
    const result = await pendingDates(root, parseJournal(''), '2026-06-09', parseTombstones(''));
    expect(result).toEqual({ dates: ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04', '2026-06-05'], facts: 7 });
  });

  it('leaves a skipped day out even when it lies after the watermark', async () => {
    const root = await tempDir();
    await writeTree(root, { ...LOGS, ...PLACED });
    const journal = parseJournal('- 2026-06-03T03:00:00Z · run r-1 · consolidated 2026-06-01..2026-06-02 · watermark=2026-06-02\n- note · skipped=2026-06-04\n');
    expect((await pendingDates(root, journal, '2026-06-09', parseTombstones(''))).dates).toEqual(['2026-06-03', '2026-06-05']);
  });
});

describe('pendingDates at or below the watermark', () => {
  const JOURNAL = parseJournal('- 2026-06-05T03:00:00Z · run r-1 · consolidated 2026-06-01..2026-06-03 · watermark=2026-06-03\n- note · skipped=2026-06-02\n');
  const LOGS = {
    'logs/2026-06-01.md': log('2026-06-01', ['- [fact] Lives in Lisbon ^f-bbbbbbbbb1', '- [fact] Written after its dream ^f-bbbbbbbbb2', '- [fact] Cited only by a digest ^f-bbbbbbbbb3']),
    'logs/2026-06-02.md': log('2026-06-02', ['- [fact] On a skipped day, never cited ^f-bbbbbbbbb4']),
    'logs/2026-06-03.md': log('2026-06-03', ['- [fact] Plays the cello ^f-bbbbbbbbb5', '- [fact] Its citation repeats a forgotten text: door code 4711 ^f-bbbbbbbbb6']),
    'logs/2026-06-04.md': log('2026-06-04', ['- [fact] After the watermark ^f-bbbbbbbbb7']),
  };
  const PAGES = {
    '2_Areas/Facts.md': '# Facts\n\n- Lives in Lisbon [[2026-06-01#^f-bbbbbbbbb1]]\n- Plays the cello [[2026-06-03#^f-bbbbbbbbb5]]\n- Door code 4711 [[2026-06-03#^f-bbbbbbbbb6]]\n',
    '4_Resources/digests/2026-W23.md': '---\ntype: digest\n---\n# Week 23\n\n- Cited only by a digest [[2026-06-01#^f-bbbbbbbbb3]]\n',
  };

  it('holds a consolidated day for its facts no page cites (a digest does not place a fact), never a skipped day', async () => {
    const root = await tempDir();
    await writeTree(root, { ...LOGS, ...PAGES });
    expect(await pendingDates(root, JOURNAL, '2026-06-09', parseTombstones(''))).toEqual({ dates: ['2026-06-01', '2026-06-04'], facts: 3 });
  });

  it('does not count a citation on a line the runner will remove for citing a forgotten fact', async () => {
    const root = await tempDir();
    await writeTree(root, { ...LOGS, '2_Areas/Facts.md': '# Facts\n\n- Lives in Lisbon, plays the cello [[2026-06-01#^f-bbbbbbbbb1]] [[2026-06-03#^f-bbbbbbbbb5]]\n' });
    expect(await pendingDates(root, JOURNAL, '2026-06-09', parseTombstones(''))).toEqual({ dates: ['2026-06-01', '2026-06-03', '2026-06-04'], facts: 4 });
    // Forgetting the cello fact takes the whole line, and with it the only citation of Lisbon: pending again.
    const tombstones = parseTombstones(`${JSON.stringify({ id: 'f-bbbbbbbbb5', text: 'plays the cello', at: '2026-06-05T00:00:00Z' })}\n`);
    expect(await pendingDates(root, JOURNAL, '2026-06-09', tombstones)).toEqual({ dates: ['2026-06-01', '2026-06-03', '2026-06-04'], facts: 5 });
  });
});

describe('pendingDates in a long-lived process (the daemon runs it every tick)', () => {
  const JOURNAL = parseJournal('- 2026-06-05T03:00:00Z · run r-1 · consolidated 2026-06-01..2026-06-01 · watermark=2026-06-01\n');
  const LOG = log('2026-06-01', ['- [fact] Lives in Lisbon ^f-ccccccccc1', '- [fact] Plays the cello ^f-ccccccccc2']);
  const PAGE = '# Facts\n\n- Lives in Lisbon [[2026-06-01#^f-ccccccccc1]]\n- Plays the cello [[2026-06-01#^f-ccccccccc2]]\n';

  it('sees every change to a log or a page, even a rewrite of the same size with its mtime put back', async () => {
    const root = await tempDir();
    await writeTree(root, { 'logs/2026-06-01.md': LOG, '2_Areas/Facts.md': PAGE });
    const none = parseTombstones('');
    const at = (): Promise<Pending> => pendingDates(root, JOURNAL, '2026-06-09', none);
    expect(await at()).toEqual({ dates: [], facts: 0 });

    // A fact appended to the consolidated day: pending.
    await appendFile(path.join(root, 'logs/2026-06-01.md'), '- [fact] Written after its dream ^f-ccccccccc3\n');
    expect(await at()).toEqual({ dates: ['2026-06-01'], facts: 1 });

    // A person moves the cello line into fenced code (same bytes, plus fences): its citation no longer places it.
    const page = path.join(root, '2_Areas/Facts.md');
    await writeFile(page, '# Facts\n\n- Lives in Lisbon [[2026-06-01#^f-ccccccccc1]]\n\n```\n- Plays the cello [[2026-06-01#^f-ccccccccc2]]\n```\n');
    expect(await at()).toEqual({ dates: ['2026-06-01'], facts: 2 });

    // The page put back, then one citation changed in place: same size, mtime restored. ctime still moves.
    await writeFile(page, PAGE);
    expect(await at()).toEqual({ dates: ['2026-06-01'], facts: 1 });
    const { mtime } = await stat(page);
    await writeFile(page, PAGE.replace('ccccccccc2', 'ccccccccc9'));
    await utimes(page, mtime, mtime);
    expect(await at()).toEqual({ dates: ['2026-06-01'], facts: 2 });
  });
});

/** What a gated or noop run must leave alone: the commit, the dream state, the journal, the pages, the working tree. */
async function footprint(vault: Vault): Promise<Record<string, unknown>> {
  const read = (rel: string): Promise<string | null> => readFile(path.join(vault.root, rel), 'utf8').catch(() => null);
  return {
    head: await git(vault.root, ['rev-parse', 'HEAD']),
    commits: await git(vault.root, ['rev-list', '--count', 'HEAD']),
    status: await git(vault.root, ['status', '--porcelain', '--untracked-files=all']),
    state: await read('.vaultkeeper/state.json'),
    journal: await read('log.md'),
    index: await read('index.md'),
    memory: await read('MEMORY.md'),
    pages: await listWikiPages(vault.root),
  };
}

async function dreamLeavingNoTrace(vault: Vault, now: Date, force = false): Promise<DreamResult> {
  const before = await footprint(vault);
  const result = await vault.dream({ now, offline: true, force });
  expect(result.run).toBeNull();
  expect(result.commit).toBeNull();
  expect(result.batch).toBeNull();
  expect(result.watermark.after).toBe(result.watermark.before);
  expect(await footprint(vault)).toEqual(before);
  return result;
}

describe('the gate through vault.dream on a real vault', () => {
  it('runs when due, gates on min_facts and min_hours without a trace, catches up a backlog at once, and obeys force', async () => {
    const vault = await makeVault(await tempDir(), {
      config: 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  min_hours: 72\n  min_facts: 4\n  max_days: 2\n',
    });
    const remember = (date: string, ...texts: string[]): Promise<unknown> =>
      vault.remember(texts.map((text) => ({ text, date, tags: ['gate'] })), { source: 'test', now: new Date(`${date}T09:00:00Z`) });
    await remember('2026-06-01', 'Lives in Lisbon');
    await remember('2026-06-02', 'Plays the cello');

    // Two pending facts, four needed: gated, and nothing changes.
    const a = new Date('2026-06-03T08:00:00Z');
    const few = await dreamLeavingNoTrace(vault, a);
    expect(few).toMatchObject({ status: 'gated', watermark: { before: null, after: null } });
    expect(few.reason).toMatch(/2 pending facts, fewer than min_facts 4; it opens when 2 more arrive/);

    // Enough facts: the first attempt needs no waiting.
    await remember('2026-06-02', 'Runs on Sundays', 'Drinks green tea');
    const first = await vault.dream({ now: new Date(a.getTime() + 60_000), offline: true });
    expect(first).toMatchObject({ status: 'ok', batch: { from: '2026-06-01', to: '2026-06-02' }, watermark: { before: null, after: '2026-06-02' }, facts: 4 });
    const lastAttempt = JSON.parse(await readFile(path.join(vault.root, '.vaultkeeper/state.json'), 'utf8')) as { dream: DreamState };
    expect(lastAttempt.dream.last_attempt_at).toBe('2026-06-03T08:01:00.000Z');

    // A day later, one pending day: min_hours (72 h) has not passed; the reason says when it opens.
    await remember('2026-06-03', 'Visited Porto', 'Met Ana', 'Read Piranesi', 'Bought a kettle');
    const early = await dreamLeavingNoTrace(vault, new Date('2026-06-04T02:00:00Z'));
    expect(early.status).toBe('gated');
    expect(early.reason).toContain('2026-06-06T08:01:00.000Z');
    expect(early.reason).toMatch(/less than 72 h ago/);

    // Three pending days (more than max_days 2) is a backlog: it runs at once, the oldest two days first,
    // though min_hours has not passed and there are fewer than min_facts facts on the later days.
    await remember('2026-06-04', 'Fixed the bike');
    await remember('2026-06-05', 'Planted basil');
    const backlog = await vault.dream({ now: new Date('2026-06-06T01:00:00Z'), offline: true });
    expect(backlog).toMatchObject({ status: 'ok', batch: { from: '2026-06-03', to: '2026-06-04' }, watermark: { before: '2026-06-02', after: '2026-06-04' }, facts: 5 });

    // One day left, one fact, just after a run: gated on min_hours again...
    const rest = await dreamLeavingNoTrace(vault, new Date('2026-06-06T01:05:00Z'));
    expect(rest.status).toBe('gated');
    expect(rest.reason).toContain('2026-06-09T01:00:00.000Z');
    // ...and forced, it runs.
    const forced = await vault.dream({ now: new Date('2026-06-06T01:06:00Z'), offline: true, force: true });
    expect(forced).toMatchObject({ status: 'ok', batch: { from: '2026-06-05', to: '2026-06-05' }, watermark: { after: '2026-06-05' } });

    // Nothing pending: noop, forced or not; today's facts are never pending, not even forced.
    await remember('2026-06-06', 'Written today');
    for (const force of [false, true]) {
      const noop = await dreamLeavingNoTrace(vault, new Date('2026-06-06T20:00:00Z'), force);
      expect(noop).toMatchObject({ status: 'noop', watermark: { before: '2026-06-05', after: '2026-06-05' } });
    }
    // The next day it is pending; min_facts (4) holds it back, force does not.
    expect((await dreamLeavingNoTrace(vault, new Date('2026-06-10T09:00:00Z'))).reason).toMatch(/1 pending facts, fewer than min_facts 4/);
    expect(await vault.dream({ now: new Date('2026-06-10T09:01:00Z'), offline: true, force: true })).toMatchObject({ status: 'ok', batch: { from: '2026-06-06', to: '2026-06-06' } });

    // One dream commit per run that went through, none for the gated and noop ones.
    const subjects = (await git(vault.root, ['log', '--format=%s'])).split('\n').filter((s) => s.startsWith('dream:'));
    expect(subjects).toHaveLength(4);
  });
});
