/**
 * Obsidian wikilinks `[[target|alias]]` and embeds `![[…]]` as a markdown-it inline rule, read exactly
 * as @flowershow/remark-wiki-link reads them (the parser the index used up to 0.1, so pages keep their
 * links): two or more `[`, a target of at least one character up to `|` or `]`, an optional alias of at
 * least one character up to `]`, then `]]`, all on one line. A link the rule does not take is ordinary text.
 */
import type { StateInline } from 'markdown-it';

export const WIKILINK_TOKEN = 'wikilink';

export interface WikiLinkMeta {
  /** What stands before the alias divider, as written. */
  value: string;
  alias?: string;
  embed: boolean;
  /** Offsets in the inline source: where the link starts (`!` of an embed, else its first `[`), and where its target starts. */
  start: number;
  valueStart: number;
}

const BANG = 0x21;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const PIPE = 0x7c;
const LF = 0x0a;
const CR = 0x0d;

/** A size written as an embed's alias (`![[photo.png|300x200]]`) is not an alias (the plugin drops it). */
const SIZE_RE = /^(\d+)(?:x(\d+))?$/u;
const SIZED_EXTENSIONS = new Set(['avif', 'bmp', 'gif', 'jpeg', 'jpg', 'png', 'svg', 'webp', 'mkv', 'mov', 'mp4', 'ogv', 'webm']);

export function wikiLinkRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const max = state.posMax;
  const start = state.pos;
  let pos = start;
  const embed = src.charCodeAt(pos) === BANG;
  if (embed) pos++;
  let opening = 0;
  while (pos < max && src.charCodeAt(pos) === OPEN) {
    pos++;
    opening++;
  }
  if (opening < 2) return false;

  const valueStart = pos;
  const valueEnd = scanPart(src, pos, max, true);
  if (valueEnd <= valueStart) return false;
  pos = valueEnd;
  let alias: string | undefined;
  if (src.charCodeAt(pos) === PIPE) {
    const aliasEnd = scanPart(src, pos + 1, max, false);
    if (aliasEnd <= pos + 1 || src.charCodeAt(aliasEnd) !== CLOSE) return false;
    alias = src.slice(pos + 1, aliasEnd);
    pos = aliasEnd;
  }
  if (pos + 1 >= max || src.charCodeAt(pos) !== CLOSE || src.charCodeAt(pos + 1) !== CLOSE) return false;
  pos += 2;

  if (!silent) {
    const value = src.slice(valueStart, valueEnd);
    const meta: WikiLinkMeta = { value, embed, start, valueStart };
    if (alias !== undefined && !(embed && isSize(value, alias))) meta.alias = alias;
    const token = state.push(WIKILINK_TOKEN, '', 0);
    token.meta = meta as unknown as Record<string, unknown>;
  }
  state.pos = pos;
  return true;
}

/** The end of a target (stops at `|` or `]`) or an alias (stops at `]`), or -1 at a line ending or the end. */
function scanPart(src: string, from: number, max: number, target: boolean): number {
  for (let pos = from; pos < max; pos++) {
    const code = src.charCodeAt(pos);
    if (code === LF || code === CR) return -1;
    if (code === CLOSE || (target && code === PIPE)) return pos;
  }
  return -1;
}

function isSize(value: string, alias: string): boolean {
  const extension = /^(.+?)(?:\.([^.]+))?$/u.exec(value)?.[2] ?? '';
  return SIZED_EXTENSIONS.has(extension) && SIZE_RE.test(alias);
}
