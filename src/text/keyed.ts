/**
 * Keyed facts (DESIGN §3): `subject:: value`, or Dataview's bracketed `[subject:: value]`. A later
 * value of the same normalized subject supersedes an earlier one. A single colon is ordinary text.
 */
import { normalizeText } from './normalize.js';

const BRACKETED_RE = /^\[([^\]:]+?)::\s*([^\]]*)\]/;
const PLAIN_RE = /^([^:[\]]+?)::\s*(.*)$/;

/** The normalized subject of a keyed fact's text, or null when the text is not keyed. */
export function keyedSubject(text: string): string | null {
  const trimmed = text.trim();
  const match = BRACKETED_RE.exec(trimmed) ?? PLAIN_RE.exec(trimmed);
  if (match === null) return null;
  const subject = normalizeText(match[1]!);
  return subject === '' ? null : subject;
}
