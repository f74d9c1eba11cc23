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
});
