/** FNV-1a's start and multiplier, for a hash taken a code unit at a time (log-facts.ts: `textMask`). */
export const FNV1A_OFFSET = 0x811c9dc5;
export const FNV1A_PRIME = 0x01000193;

/** FNV-1a over a string's UTF-16 code units, as an unsigned 32-bit number: cheap, and the same in every thread. */
export function fnv1a(text: string): number {
  let h = FNV1A_OFFSET;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV1A_PRIME);
  return h >>> 0;
}
