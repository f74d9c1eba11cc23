import { describe, expect, it } from 'vitest';
import { runWithLeanMalloc } from '../../src/cli/lean-malloc.js';

describe('a rebuild with a lean malloc (lean-malloc.ts)', () => {
  // Any spawn here would run vitest again: these resolve at once, in this process.
  it('works in this process when the settings are already set (it is the child) or turned off', async () => {
    expect(await runWithLeanMalloc({ ...process.env, MALLOC_ARENA_MAX: '4' })).toBeNull();
    expect(await runWithLeanMalloc({ ...process.env, MALLOC_ARENA_MAX: undefined, VAULTKEEPER_LEAN_MALLOC: '0' })).toBeNull();
  });
});
