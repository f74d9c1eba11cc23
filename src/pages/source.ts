/**
 * A page's text as the lines a person sees in an editor: decoded leniently (invalid UTF-8 becomes
 * U+FFFD), without a byte-order mark, split at any line ending (CRLF, LF or a lone CR). Line numbers
 * everywhere in src/pages are 1-based indexes into this array.
 */
const utf8 = new TextDecoder('utf-8', { fatal: false });

export function sourceLines(content: string | Uint8Array): string[] {
  let text = typeof content === 'string' ? content : utf8.decode(content);
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  if (text.length === 0) return [];
  const lines = text.split(/\r\n|\r|\n/);
  // A final line ending ends the last line; it does not start a new one.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

export function isBlank(line: string): boolean {
  return line.trim() === '';
}
