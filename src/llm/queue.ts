/** The executor's queue: at most `limit` calls in flight, the rest wait first come, first served; any wait ends on abort. */
import { VaultkeeperError } from '../core/errors.js';

export interface Slots {
  /** Resolves when the caller may go; rejects with the abort's error if `signal` fires first. */
  acquire(signal?: AbortSignal): Promise<void>;
  release(): void;
  readonly active: number;
  readonly waiting: number;
}

export function createSlots(limit: number): Slots {
  let active = 0;
  const queue: Array<() => void> = [];
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    acquire(signal) {
      if (signal?.aborted === true) return Promise.reject(abortError(signal));
      if (active < limit && queue.length === 0) {
        active++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const grant = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = (): void => {
          const at = queue.indexOf(grant);
          if (at >= 0) queue.splice(at, 1);
          reject(abortError(signal!));
        };
        queue.push(grant);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    release() {
      // The slot passes straight to the next caller in line, so `active` only drops when no one waits.
      const next = queue.shift();
      if (next === undefined) active--;
      else next();
    },
  };
}

/** `promise`, or the abort's error as soon as `signal` fires. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/** The abort's own reason when it is a typed error (e.g. a run's timeout), else VK_LLM_ABORTED. */
export function abortError(signal: AbortSignal): VaultkeeperError {
  const reason: unknown = signal.reason;
  if (reason instanceof VaultkeeperError) return reason;
  return new VaultkeeperError('VK_LLM_ABORTED', 'the LLM call was aborted', { cause: reason });
}
