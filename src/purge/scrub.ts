/**
 * The one text transform of a purge, applied alike to the working files and to every blob and commit message of
 * the git history, so the rewritten history ends in exactly the tree on disk: a purged fact's log line keeps its
 * category and id with the text replaced by the marker (a link to its block still resolves), a page line that
 * cites a purged fact goes, and any other occurrence of a purged text is replaced by the marker.
 */
export const PURGED = '[purged]';

export interface PurgeTerms {
  /** The ids of the purged facts. */
  ids: readonly string[];
  /** The texts to erase wherever they occur (as written, as parsed, normalized, the --match words). */
  texts: readonly string[];
}

export type Scrubber = (text: string) => string;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function scrubber(terms: PurgeTerms): Scrubber {
  const ids = new Set(terms.ids);
  const texts = [...new Set(terms.texts.map((t) => t.trim()).filter((t) => t.length >= 3))].sort((a, b) => b.length - a.length);
  const anyText = texts.length === 0 ? null : new RegExp(texts.map(escape).join('|'), 'giu');
  const holdsText = texts.length === 0 ? null : new RegExp(texts.map(escape).join('|'), 'iu');
  const idPattern = ids.size === 0 ? null : new RegExp([...ids].map(escape).join('|'), 'u');
  // `- [category] text #tags ^id` (the log's fact line, also quoted in a remember commit's message).
  const factLine = /^(\s*[-*+][ \t]+)(\[[A-Za-z_-]+\][ \t]+)?.*?\^(f-[0-9a-z]+)\s*$/u;
  const citation = /#\^(f-[0-9a-z]+)/gu;
  return (text) => {
    if (!(idPattern?.test(text) ?? false) && !(holdsText?.test(text) ?? false)) return text;
    const lines = text.split('\n');
    const out: string[] = [];
    for (const line of lines) {
      const fact = factLine.exec(line);
      if (fact !== null && ids.has(fact[3]!)) {
        out.push(`${fact[1]}${fact[2] ?? ''}${PURGED} ^${fact[3]}${line.endsWith('\r') ? '\r' : ''}`);
        continue;
      }
      if ([...line.matchAll(citation)].some((m) => ids.has(m[1]!))) continue;
      out.push(anyText === null ? line : line.replace(anyText, PURGED));
    }
    return out.join('\n');
  };
}
