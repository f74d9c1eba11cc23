/** The rows a warm store holds by row id (shown-by-id.ts): for one table state, a bounded number, oldest out first. */
import { describe, expect, it } from 'vitest';
import { ShownById } from '../../src/indexer/shown-by-id.js';

describe('ShownById', () => {
  it('gives the rows held at the same table state, none after it changed or was dropped', () => {
    const held = new ShownById();
    expect(held.at('3:10').size).toBe(0);
    held.hold([1, 2], ['a', 'b']);
    expect([...held.at('3:10')]).toEqual([[1, 'a'], [2, 'b']]);
    // Another version or row count: the same ids may name other rows.
    expect(held.at('4:10').size).toBe(0);
    held.hold([1], ['c']);
    expect(held.at('4:10').get(1)).toBe('c');
    expect(held.at('4:11').size).toBe(0);
    held.hold([1], ['d']);
    held.drop();
    expect(held.at('4:11').size).toBe(0);
  });

  it('holds at most its bound, the oldest read going first, and keeps a row it holds as first read', () => {
    const held = new ShownById(3);
    held.at('1:1');
    held.hold([1, 2, 3], ['a', 'b', 'c']);
    held.hold([2, 4], ['x', 'd']);
    expect([...held.at('1:1')]).toEqual([[2, 'b'], [3, 'c'], [4, 'd']]);
  });

  it('makes room a quarter at a time, oldest first (one at a time walked past the deleted ones each time)', () => {
    const held = new ShownById(8);
    held.at('1:1');
    held.hold([1, 2, 3, 4, 5, 6, 7, 8], ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    held.hold([9], ['i']);
    expect([...held.at('1:1').keys()]).toEqual([3, 4, 5, 6, 7, 8, 9]);
    held.hold([10, 11], ['j', 'k']);
    expect([...held.at('1:1').keys()]).toEqual([5, 6, 7, 8, 9, 10, 11]);
  });
});
