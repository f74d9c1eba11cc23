/**
 * A Basic Memory folder: markdown notes with YAML frontmatter (`title`, `type`, `tags`, `permalink`), whose
 * list items `- [category] content #tag (context)` are observations and `- relation_type [[Target]]` are
 * relations, anywhere in the note outside code fences (Basic Memory's own rule; a task box `[ ]`/`[x]` and a
 * markdown link `[text](url)` are not categories). Each observation becomes a fact (a category vaultkeeper
 * lacks becomes a tag), each relation a `relationship` fact that links its target; the note itself is adopted as
 * a page, byte for byte, at its place in the folder. A note is dated by its frontmatter (`created`, `date`),
 * else by the file's modification time.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isValidDate } from '../core/clock.js';
import { readFrontmatter } from '../pages/frontmatter.js';
import { sourceLines } from '../pages/source.js';
import { emptySource, timeOf, type ImportSource } from './source.js';

const OBSERVATION_RE = /^\s*[-*]\s+\[([^\][]+)\](?!\()\s+(\S.*)$/u;
const RELATION_RE = /^\s*[-*]\s+([\p{L}\p{N}_][\p{L}\p{N}_ -]*?)\s+\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\](.*)$/u;
const FENCE_RE = /^\s*(```|~~~)/u;

export interface NoteSemantics {
  observations: { category: string; content: string }[];
  relations: { type: string; target: string }[];
}

/** The observations and relations of one note's text. */
export function noteSemantics(text: string): NoteSemantics {
  const out: NoteSemantics = { observations: [], relations: [] };
  let fenced = false;
  for (const line of sourceLines(text)) {
    if (FENCE_RE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const observation = OBSERVATION_RE.exec(line);
    if (observation !== null) {
      const category = observation[1]!.trim();
      if (category === '' || /^[ xX]$/u.test(observation[1]!)) continue;
      out.observations.push({ category, content: observation[2]!.trim() });
      continue;
    }
    const relation = RELATION_RE.exec(line);
    if (relation !== null) out.relations.push({ type: relation[1]!.trim(), target: relation[2]!.trim() });
  }
  return out;
}

/** The notes under `dir`, as folder-relative POSIX paths, sorted; hidden folders are not notes. */
export async function listNotes(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.md'))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((rel) => !rel.split('/').some((segment) => segment.startsWith('.')))
    .sort();
}

/** True when some note in the folder holds an observation or a relation. */
export async function isBasicMemoryFolder(dir: string, notes: readonly string[]): Promise<boolean> {
  for (const rel of notes) {
    const semantics = noteSemantics(await readFile(path.join(dir, rel), 'utf8'));
    if (semantics.observations.length > 0 || semantics.relations.length > 0) return true;
  }
  return false;
}

interface Note {
  rel: string;
  bytes: Buffer;
  text: string;
  title: string;
  raw: Record<string, unknown>;
}

export async function readBasicMemory(dir: string, rels: readonly string[]): Promise<ImportSource> {
  const out = emptySource('basic-memory');
  const notes: Note[] = [];
  for (const rel of rels) {
    const bytes = await readFile(path.join(dir, rel));
    const text = bytes.toString('utf8');
    const { frontmatter } = readFrontmatter(sourceLines(text));
    const title = frontmatter.title ?? /^#\s+(.+)$/mu.exec(text)?.[1]?.trim() ?? path.posix.basename(rel, '.md');
    notes.push({ rel, bytes, text, title, raw: frontmatter.raw });
  }
  // A relation's target stays a link when it names an imported note (by title, file name or permalink); a link
  // to nothing would be a broken link on the dream's pages, so an unknown target is named in plain words.
  const known = new Set(notes.flatMap((n) => [n.title, path.posix.basename(n.rel, '.md'), n.rel.replace(/\.md$/u, ''), typeof n.raw.permalink === 'string' ? n.raw.permalink : ''].map((s) => s.toLowerCase())));
  for (const { rel, bytes, text, title, raw } of notes) {
    const file = path.join(dir, rel);
    out.pages.push({ rel, bytes });
    const stamp = [raw.created, raw.date, raw.created_at].map(dateOf).find((d) => d !== undefined) ?? { at: (await stat(file)).mtime };
    const name = slug(typeof raw.permalink === 'string' ? raw.permalink : title).slice(0, 40);
    const source = name === '' ? 'basic-memory' : `basic-memory/${name}`;
    const { observations, relations } = noteSemantics(text);
    // The note's title makes an observation stand alone: "Pour over gives clarity" is about the note's subject.
    for (const { category, content } of observations) out.facts.push({ text: `${title}: ${content}`, category, tags: [], ...stamp, source });
    for (const { type, target } of relations) {
      const named = known.has(target.toLowerCase()) ? `[[${target}]]` : target;
      out.facts.push({ text: `${title} ${type.replace(/_/g, ' ')} ${named}`, category: 'relationship', tags: [], ...stamp, source });
    }
  }
  return out;
}

/** A frontmatter date: a bare `2024-02-03` is a local date as written (never shifted by a time zone); else a moment. */
function dateOf(value: unknown): { at: Date | null; date?: string } | undefined {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value.trim())) return isValidDate(value.trim()) ? { at: null, date: value.trim() } : undefined;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return undefined;
    const iso = value.toISOString();
    // YAML 1.1 reads a bare date as midnight UTC: that is the written date, not a moment.
    return iso.endsWith('T00:00:00.000Z') ? { at: null, date: iso.slice(0, 10) } : { at: value };
  }
  const at = timeOf(value);
  return at === undefined ? undefined : { at };
}

function slug(value: string): string {
  return value.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
