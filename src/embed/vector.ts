/** Vector helpers shared by the embedders: every embedder returns L2-normalized Float32Arrays. */

/** Scales `vector` in place to unit length; a zero vector stays zero. Returns it. */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  return vector;
}

/** A unit-length Float32Array copy of `values` (numbers from a model or an HTTP response). */
export function toUnitVector(values: ArrayLike<number>): Float32Array {
  return normalizeInPlace(Float32Array.from(values));
}
