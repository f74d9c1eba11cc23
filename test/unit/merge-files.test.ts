import { describe, expect, it } from 'vitest';
import { parseLog } from '../../src/logs/factlog.js';
import { mergeLines, mergeLog } from '../../src/sync/merge-files.js';

const base = '# 2026-06-09\n\n## 09:00 · cli\n- [fact] Lives in Berlin ^f-aaaaaaaaaa\n';
const ours = `${base}\n## 11:00 · cli\n- [fact] Drinks tea ^f-bbbbbbbbbb\n`;
const theirs = `${base}\n## 10:00 · laptop\n- [fact] Owns a bike ^f-cccccccccc\n- [fact] Likes rain ^f-dddddddddd\n`;

describe('mergeLog', () => {
  it('keeps every batch of both sides, new batches in time order, in the shape the writer writes', () => {
    const merged = mergeLog(base, ours, theirs);
    expect(merged).toBe(
      '# 2026-06-09\n\n## 09:00 · cli\n- [fact] Lives in Berlin ^f-aaaaaaaaaa\n\n## 10:00 · laptop\n- [fact] Owns a bike ^f-cccccccccc\n- [fact] Likes rain ^f-dddddddddd\n\n## 11:00 · cli\n- [fact] Drinks tea ^f-bbbbbbbbbb\n',
    );
    expect(parseLog(merged, '2026-06-09').facts.map((f) => f.id).sort()).toEqual(['f-aaaaaaaaaa', 'f-bbbbbbbbbb', 'f-cccccccccc', 'f-dddddddddd']);
  });

  it('is the same whichever side is ours, apart from ties at one minute', () => {
    expect(mergeLog(base, theirs, ours)).toBe(mergeLog(base, ours, theirs));
  });

  it('keeps a batch both sides appended once, and a fact once by id', () => {
    const both = `${base}\n## 10:00 · laptop\n- [fact] Owns a bike ^f-cccccccccc\n`;
    expect(mergeLog(base, both, both)).toBe(both);
    // The same fact under two headers (a retried push): the second copy and its emptied header go.
    const again = `${base}\n## 10:05 · laptop\n- [fact] Owns a bike ^f-cccccccccc\n`;
    const merged = mergeLog(base, both, again);
    expect(parseLog(merged, '2026-06-09').facts.map((f) => f.id)).toEqual(['f-aaaaaaaaaa', 'f-cccccccccc']);
    expect(merged).not.toContain('10:05');
  });

  it('drops nothing either side holds: free text and a batch one side lost stay', () => {
    const edited = `${base}\nA note a person typed here.\n`;
    const lost = '# 2026-06-09\n';
    const merged = mergeLog(base, lost, edited);
    expect(merged).toContain('Lives in Berlin');
    expect(merged).toContain('A note a person typed here.');
  });

  it('merges a file that did not exist at the base (both machines wrote the same new day)', () => {
    const a = '# 2026-06-10\n\n## 08:00 · cli\n- [fact] A ^f-eeeeeeeeee\n';
    const b = '# 2026-06-10\n\n## 07:00 · cli\n- [fact] B ^f-ffffffffff\n';
    expect(mergeLog('', a, b)).toBe('# 2026-06-10\n\n## 07:00 · cli\n- [fact] B ^f-ffffffffff\n\n## 08:00 · cli\n- [fact] A ^f-eeeeeeeeee\n');
  });
});

describe('mergeLines', () => {
  it('keeps ours, then the lines only theirs holds, each once', () => {
    const t1 = '{"id":"f-1","text":"a","at":"1"}\n';
    const t2 = '{"id":"f-2","text":"b","at":"2"}\n';
    const t3 = '{"id":"f-3","text":"c","at":"3"}\n';
    expect(mergeLines(t1, t1 + t2, t1 + t3)).toBe(t1 + t2 + t3);
    expect(mergeLines(t1, t1 + t2, t1 + t2)).toBe(t1 + t2);
    expect(mergeLines('', '', t3)).toBe(t3);
  });
});
