import { describe, expect, it } from 'vitest';
import { FenceTracker } from '../../src/text/fence.js';

const inCode = (lines: string[]): boolean[] => {
  const fences = new FenceTracker();
  return lines.map((line) => fences.inCode(line));
};

describe('fenced code, line by line', () => {
  it('marks the fences and what stands between them', () => {
    expect(inCode(['- a', '```ts', '- b [[x]]', '```', '- c'])).toEqual([false, true, true, true, false]);
  });

  it('closes only on the same character, at least as long, alone on its line', () => {
    expect(inCode(['````', '```', '~~~~', '```` not a close', '`````', 'after'])).toEqual([true, true, true, true, true, false]);
    expect(inCode(['~~~', '```', '~~~', 'after'])).toEqual([true, true, true, false]);
  });

  it('reads a fence indented by up to three spaces, not four (that is indented code, left alone)', () => {
    expect(inCode(['   ```', 'x', '   ```', '    ```', 'y'])).toEqual([true, true, true, false, false]);
  });

  it('an unclosed fence runs to the end', () => {
    expect(inCode(['a', '~~~', 'b', 'c'])).toEqual([false, true, true, true]);
  });
});
