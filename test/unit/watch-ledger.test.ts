/** When the watcher may hand a pass its list of changed files (watch.ts ChangeLedger), and when every file is statted. */
import { describe, expect, it } from 'vitest';
import { ChangeLedger } from '../../src/indexer/change-ledger.js';

describe('ChangeLedger', () => {
  it('vouches from the second pass on, after a first that finished clean', () => {
    const ledger = new ChangeLedger();
    expect(ledger.begin(['logs/2026-06-01.md'])).toBeUndefined(); // changes before the watch are unknown
    ledger.end(true);
    expect(ledger.begin(['logs/2026-06-01.md'])).toEqual(['logs/2026-06-01.md']);
    ledger.end(true);
    expect(ledger.begin([])).toEqual([]);
  });

  it('an error (an overflowed queue, a watch not added) or a folder event: the next pass stats every file, then vouches again', () => {
    const ledger = new ChangeLedger();
    ledger.begin([]);
    ledger.end(true);
    ledger.miss();
    expect(ledger.begin(['a.md'])).toBeUndefined();
    ledger.end(true);
    expect(ledger.begin(['a.md'])).toEqual(['a.md']);
  });

  it('a miss during a pass counts against the next one, not the one running', () => {
    const ledger = new ChangeLedger();
    ledger.begin([]);
    ledger.end(true);
    expect(ledger.begin(['a.md'])).toEqual(['a.md']);
    ledger.miss();
    ledger.end(true);
    expect(ledger.begin(['b.md'])).toBeUndefined();
  });

  it('a pass that failed or skipped a file is no base for the next', () => {
    const ledger = new ChangeLedger();
    ledger.begin([]);
    ledger.end(false);
    expect(ledger.begin(['a.md'])).toBeUndefined();
    ledger.end(true);
    ledger.begin(['a.md']);
    ledger.end(false);
    expect(ledger.begin(['a.md'])).toBeUndefined();
  });

  it('overlapping passes (a warm Vault, searching): none vouched while another runs, and a base only once all end clean', () => {
    const ledger = new ChangeLedger();
    ledger.begin([]);
    ledger.end(true);
    expect(ledger.begin(['a.md'])).toEqual(['a.md']); // A
    expect(ledger.begin(['b.md'])).toBeUndefined(); // B, while A runs
    ledger.end(true); // B
    ledger.end(true); // A
    expect(ledger.begin(['c.md'])).toEqual(['c.md']);
    ledger.end(true);
    ledger.begin([]); // A
    ledger.begin([]); // B
    ledger.end(false); // B failed: the changes it took are not in the index
    ledger.end(true); // A
    expect(ledger.begin(['d.md'])).toBeUndefined();
  });

  it('stats every file again once the last full pass began longer ago than the bound, however clean the list', () => {
    let now = 1_000;
    const ledger = new ChangeLedger({ everyMs: 600_000, now: () => now });
    expect(ledger.begin([])).toBeUndefined();
    ledger.end(true);
    now += 599_999;
    expect(ledger.begin(['a.md'])).toEqual(['a.md']); // vouched passes do not reset the bound
    ledger.end(true);
    now += 1;
    expect(ledger.begin(['b.md'])).toBeUndefined();
    ledger.end(true);
    now += 10;
    expect(ledger.begin(['c.md'])).toEqual(['c.md']);
    ledger.end(true);
  });

  it('a full pass that failed does not count as the last full stat', () => {
    let now = 0;
    const ledger = new ChangeLedger({ everyMs: 1_000, now: () => now });
    ledger.begin([]);
    ledger.end(true);
    now = 1_000;
    expect(ledger.begin(['a.md'])).toBeUndefined();
    ledger.end(false);
    now = 1_010;
    expect(ledger.begin(['a.md'])).toBeUndefined(); // the failed pass is no base
    ledger.end(true);
    now = 1_020;
    expect(ledger.begin(['a.md'])).toEqual(['a.md']);
    ledger.end(true);
    now = 2_009;
    expect(ledger.begin([])).toEqual([]); // 989 ms since the last clean full pass began at 1,010 ms
    ledger.end(true);
    now = 2_010;
    expect(ledger.begin([])).toBeUndefined();
  });
});
