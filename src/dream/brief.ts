/**
 * A long fact is cited, not copied whole (issue 30): its statement on a page is its opening, cut at a
 * sentence or word end, with "…", and the citation beside it leads to the whole text in its log. A page then
 * stays under its size bound whatever one fact holds, and a lead or a mention copies a short line.
 */

/** Characters a statement may hold before it is cut; a fact this long is a document, not a statement. */
export const MAX_STATEMENT_CHARS = 600;

export function brief(text: string): string {
  if (text.length <= MAX_STATEMENT_CHARS) return text;
  const head = text.slice(0, MAX_STATEMENT_CHARS);
  // A sentence end in the second half is the cleanest cut; else the last space; else the characters as they come.
  const sentence = Math.max(...['. ', '! ', '? '].map((end) => head.lastIndexOf(end)));
  const space = head.lastIndexOf(' ');
  let cut = sentence >= MAX_STATEMENT_CHARS / 2 ? sentence + 1 : space >= MAX_STATEMENT_CHARS / 2 ? space : MAX_STATEMENT_CHARS;
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(head.charAt(cut - 1))) cut--;
  return `${head.slice(0, cut).trimEnd()} …`;
}
