/**
 * Where a wikilink leads, resolved the way Obsidian does: by vault path, by path relative to the
 * linking page (`./`, `../`), by the end of a path (`folder/note`), by file name, and last by an alias
 * in a page's frontmatter. Names compare case-insensitively; among several matches the shortest
 * path wins (then the first in sort order, so the answer never depends on listing order). Daily logs
 * count as files, so `[[2026-06-09]]` leads to logs/2026-06-09.md when that log exists.
 */
import path from 'node:path';

export interface LinkablePage {
  /** Vault-relative POSIX path, e.g. '2_Areas/Coffee.md'. */
  path: string;
  aliases?: readonly string[];
}

/**
 * The vault path a link target leads to, or null for a broken link. `target` is the page part of the
 * link (as in WikiLinkParts); `from` is the linking page, needed for `./` links and for `[[#Heading]]`.
 */
export type LinkResolver = (target: string, from?: string) => string | null;

/** Extensions of files a link may embed that are not pages (Obsidian's attachment types). */
const ATTACHMENT_RE = /\.(?:avif|bmp|gif|jpe?g|png|svg|webp|flac|m4a|mp3|ogg|wav|3gp|mkv|mov|mp4|ogv|webm|pdf|canvas|base)$/iu;

/** True when a link target names an attachment (image, audio, video, PDF, canvas) rather than a page. */
export function isAttachmentTarget(target: string): boolean {
  return ATTACHMENT_RE.test(target.trim());
}

export function linkResolver(pages: readonly LinkablePage[], logDates: readonly string[] = []): LinkResolver {
  const files = [...pages.map((page) => page.path), ...logDates.map((date) => `logs/${date}.md`)].sort(byPreference);
  const byPath = new Map<string, string>();
  const byName = new Map<string, string>();
  const byAlias = new Map<string, string>();
  // Sorted by preference, so the first entry kept under a key is the one that wins.
  for (const file of files) {
    const stem = withoutExtension(file);
    setFirst(byPath, key(stem), file);
    setFirst(byName, key(path.posix.basename(stem)), file);
  }
  for (const page of [...pages].sort((a, b) => byPreference(a.path, b.path))) {
    for (const alias of page.aliases ?? []) setFirst(byAlias, key(alias.trim()), page.path);
  }
  const stems = files.map((file) => ({ file, stem: key(withoutExtension(file)) }));

  return (target, from) => {
    // Tolerate a whole link body: the page part ends at a heading, block or alias.
    let name = target.split(/[|#]/u, 1)[0]!.trim();
    if (name === '') return from ?? null;
    name = withoutExtension(name.replace(/^\/+/u, ''));
    if (name.startsWith('./') || name.startsWith('../')) {
      if (from === undefined) return null;
      const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), name));
      return joined.startsWith('../') ? null : (byPath.get(key(joined)) ?? null);
    }
    const wanted = key(name);
    const exact = byPath.get(wanted);
    if (exact !== undefined) return exact;
    if (wanted.includes('/')) {
      return stems.find(({ stem }) => stem.endsWith(`/${wanted}`))?.file ?? byAlias.get(wanted) ?? null;
    }
    return byName.get(wanted) ?? byAlias.get(wanted) ?? null;
  };
}

/** Shorter paths first (Obsidian's "shortest path"), then code-unit order. */
function byPreference(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** File names may come from macOS in decomposed form; links are typed composed. */
function key(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

function withoutExtension(file: string): string {
  return file.replace(/\.md$/iu, '');
}

function setFirst(map: Map<string, string>, mapKey: string, value: string): void {
  if (!map.has(mapKey)) map.set(mapKey, value);
}
