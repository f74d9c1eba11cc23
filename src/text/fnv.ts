/** FNV-1a over a string's UTF-16 code units, as an unsigned 32-bit number: cheap, and the same in every thread. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
