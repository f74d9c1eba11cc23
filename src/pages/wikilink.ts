/**
 * The parts of an Obsidian wikilink, `[[target#heading|alias]]` or `[[target#^block]]`, and the one
 * form that cites a fact (DESIGN §3): `[[YYYY-MM-DD#^f-xxxxxxxxxx]]`, which points at a fact's block
 * id in a daily log.
 */
import { FACT_ID_RE } from '../logs/ids.js';

export interface WikiLinkParts {
  /** The page named, as written ('' for a link into the same page, like `[[#Heading]]`). */
  target: string;
  heading?: string;
  block?: string;
  alias?: string;
}

const LOG_TARGET_RE = /^(?:logs\/)?\d{4}-\d{2}-\d{2}(?:\.md)?$/u;

/**
 * Splits the inside of a wikilink. `value` is what stands before the alias divider; a backslash
 * before the divider (`[[note\|alias]]`, how a link is escaped in a table) is not part of the target.
 */
export function splitWikiLink(value: string, alias?: string): WikiLinkParts {
  let inner = value;
  if (alias !== undefined && inner.endsWith('\\')) inner = inner.slice(0, -1);
  const hash = inner.indexOf('#');
  const parts: WikiLinkParts = { target: (hash < 0 ? inner : inner.slice(0, hash)).trim() };
  if (hash >= 0) {
    const rest = inner.slice(hash + 1).trim();
    if (rest.startsWith('^')) {
      const block = rest.slice(1).trim();
      if (block !== '') parts.block = block;
    } else if (rest !== '') {
      parts.heading = rest;
    }
  }
  const cleanAlias = alias?.trim();
  if (cleanAlias !== undefined && cleanAlias !== '') parts.alias = cleanAlias;
  return parts;
}

/** The fact id a link cites, or null when it is not a citation of a fact in a daily log. */
export function citedFactId(link: WikiLinkParts): string | null {
  if (link.block === undefined || !LOG_TARGET_RE.test(link.target)) return null;
  return FACT_ID_RE.test(link.block) ? link.block : null;
}
