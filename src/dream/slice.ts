/**
 * Long work in slices (issue 30): the offline consolidator gives the event loop a turn every SLICE_MS, so
 * the run's timer (dream.timeout_s) and the write lock's refresh run while it works, and it stops at the
 * next slice once the run is told to. Without it a large batch blocks both until it ends.
 */

/** How long one slice of work holds the event loop. */
const SLICE_MS = 50;

/** A function to call between units of work: cheap until a slice is over, then it yields and checks the signal. */
export function slicer(signal: AbortSignal): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
    signal.throwIfAborted();
  };
}
