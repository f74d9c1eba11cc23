/** The VaultkeeperError a promise rejects with; fails the test when it resolves or rejects with something else. */
import { expect } from 'vitest';
import { VaultkeeperError } from '../../src/core/errors.js';

export async function rejection(promise: Promise<unknown>): Promise<VaultkeeperError> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VaultkeeperError);
  return error as VaultkeeperError;
}
