/**
 * `vaultkeeper import`: an export of another memory tool into the vault. The reader for its format gives
 * facts (dated as in the source), conversations (read for facts by the extractor, as `ingest` reads a
 * transcript) and notes (adopted as pages, byte for byte). Everything goes through `remember` in one call: one
 * lock, one commit, the logs appended as any fact is. A second run of the same export adds nothing: a fact
 * already in the log of its date from the same source, a note already in the vault, are left out.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { localStamp } from '../core/clock.js';
import { UsageError, VaultkeeperError } from '../core/errors.js';
import type { WriteLock } from '../core/lock.js';
import { cleanTags, type DatedCandidate } from '../extract/extracted.js';
import { createExtractor, type ExtractorOptions } from '../extract/extractor.js';
import { scanTurns } from '../extract/signals.js';
import { canonicalFact, CATEGORIES, readLog, type AppendedFact, type Category, type FactInput } from '../logs/factlog.js';
import { isWikiPagePath } from '../pages/discover.js';
import { normalizeText } from '../text/normalize.js';
import { readTombstones } from '../tombstones/tombstones.js';
import { confinedPath } from '../vault/confine.js';
import { mkdirConfined } from '../vault/confined-write.js';
import type { Vault } from '../vault/vault.js';
import { readImport } from './detect.js';
import type { ImportedFact, ImportFormat, ImportSource } from './source.js';

export interface ImportOptions extends ExtractorOptions {
  /** When a record has no time of its own: default, the export file's modification time. */
  fallbackAt?: Date;
}

export interface ImportResult {
  format: ImportFormat;
  /** Facts appended to the logs. */
  facts: number;
  /** Facts left out because the log of their date already holds them from the same source (a re-import). */
  duplicates: number;
  /** Facts left out because they repeat a forgotten (tombstoned) fact. */
  forgotten: number;
  /** Records of the export that could not be read as facts. */
  unreadable: number;
  conversations: number;
  turns: number;
  /** Notes adopted as pages (vault-relative paths), and those already in the vault as they are. */
  pages: { added: string[]; unchanged: number; skipped: { path: string; reason: string }[] };
  commit: string | null;
  appended: AppendedFact[];
  /** Says so when the facts are stored but git could not commit them. */
  warning?: string;
}

export async function importExport(vault: Vault, given: string, options: ImportOptions = {}): Promise<ImportResult> {
  const source = await readImport(given);
  const fallbackAt = options.fallbackAt ?? (await stat(path.resolve(given))).mtime;
  const result: ImportResult = {
    format: source.format,
    facts: 0,
    duplicates: 0,
    forgotten: 0,
    unreadable: source.unreadable,
    conversations: source.conversations.length,
    turns: source.conversations.reduce((n, c) => n + c.turns.length, 0),
    pages: { added: [], unchanged: 0, skipped: [] },
    commit: null,
    appended: [],
  };
  const imported = [...source.facts, ...(await conversationFacts(vault, source, fallbackAt, options))];
  const inputs = await newFacts(vault, imported, fallbackAt, result);
  const pages = await plannedPages(vault.root, source, result);
  if (inputs.length === 0 && pages.length === 0) return result;

  const what = [inputs.length > 0 ? `${inputs.length} ${inputs.length === 1 ? 'fact' : 'facts'}` : '', pages.length > 0 ? `${pages.length} ${pages.length === 1 ? 'note' : 'notes'}` : '']
    .filter((s) => s !== '')
    .join(' and ');
  const remembered = await vault.remember(inputs, {
    source: `import/${source.format}`,
    commit: {
      // Adopted notes are a person's words: the snapshot op is what tells the dream to keep every line of them.
      op: pages.length > 0 ? 'snapshot' : 'import',
      subject: `import: ${what} from a ${FORMAT_NAMES[source.format]} export`,
      body: `Imported by vaultkeeper import from ${path.basename(path.resolve(given))}.${pages.length > 0 ? `\n\nNotes adopted as pages, byte for byte:\n${pages.map((p) => `+ ${p.rel}`).join('\n')}` : ''}`,
    },
    ...(pages.length > 0 ? { alsoWrite: (lock: WriteLock) => writePages(lock, pages, result) } : {}),
  });
  result.appended = remembered.facts;
  result.facts = remembered.facts.length;
  result.commit = remembered.commit;
  if (remembered.warning !== undefined) result.warning = remembered.warning;
  try {
    await vault.reindex({ lockWaitMs: 10_000 });
  } catch (error) {
    // Another indexer holds the lock: it, or the next search, indexes the new facts.
    if (!(error instanceof VaultkeeperError && error.code === 'VK_LOCKED')) throw error;
  }
  return result;
}

const FORMAT_NAMES: Record<ImportFormat, string> = {
  chatgpt: 'ChatGPT',
  'claude-ai': 'Claude.ai',
  mem0: 'mem0',
  'basic-memory': 'Basic Memory',
  vaultkeeper: 'vaultkeeper',
};

/** Facts the extractor finds in the export's conversations, dated by the turn they came from. */
async function conversationFacts(vault: Vault, source: ImportSource, fallbackAt: Date, options: ExtractorOptions): Promise<ImportedFact[]> {
  if (source.conversations.length === 0) return [];
  const extractor = createExtractor(vault.ctx, options);
  const out: ImportedFact[] = [];
  for (const conversation of source.conversations) {
    const candidates: DatedCandidate[] = scanTurns(conversation.turns).candidates.map((c) => ({ ...c, at: c.turn.at ?? fallbackAt }));
    if (candidates.length === 0) continue;
    const atOf = new Map(candidates.map((c) => [c.turn.index, c.at]));
    for (const fact of (await extractor.extract(candidates)).facts) {
      out.push({ text: fact.text, category: fact.category, tags: fact.tags, at: atOf.get(fact.turn) ?? fallbackAt, source: conversation.source });
    }
  }
  return out;
}

/** A format's category as one of vaultkeeper's; one it lacks is kept as a tag on a plain fact. */
function mapCategory(raw: string): { category: Category; tag: string | null } {
  const name = raw.trim().toLowerCase();
  const known = (value: string): value is Category => (CATEGORIES as readonly string[]).includes(value);
  if (known(name)) return { category: name, tag: null };
  const singular = name.replace(/s$/u, '');
  if (known(singular)) return { category: singular, tag: null };
  if (singular === 'relation') return { category: 'relationship', tag: null };
  return { category: 'fact', tag: cleanTags([name])[0] ?? null };
}

/**
 * The facts to append: valid, not tombstoned, and not already in the log of their date from the same source.
 * Counted as a multiset, so an export that holds the same fact twice (two days' `remember`) imports it twice.
 */
async function newFacts(vault: Vault, imported: readonly ImportedFact[], fallbackAt: Date, result: ImportResult): Promise<FactInput[]> {
  const tombstones = await readTombstones(vault.root);
  const existing = new Map<string, Map<string, number>>();
  const inputs: FactInput[] = [];
  for (const fact of imported) {
    const stamp = fact.date === undefined ? localStamp(fact.at ?? fallbackAt, vault.ctx.timeZone) : { date: fact.date, time: fact.time };
    const { category, tag } = mapCategory(fact.category);
    const input: FactInput = {
      text: fact.text,
      category,
      tags: cleanTags([...fact.tags, ...(tag === null ? [] : [tag])]),
      date: stamp.date,
      ...(stamp.time === undefined ? {} : { time: stamp.time }),
      source: fact.source,
    };
    let text: string;
    try {
      text = canonicalFact(input).text;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      result.unreadable++;
      continue;
    }
    if (tombstones.repeats(text)) {
      result.forgotten++;
      continue;
    }
    let counts = existing.get(stamp.date);
    if (counts === undefined) {
      counts = new Map();
      for (const f of (await readLog(vault.root, stamp.date)).facts) bump(counts, keyOf(f.source, f.text));
      existing.set(stamp.date, counts);
    }
    const key = keyOf(fact.source, text);
    const have = counts.get(key) ?? 0;
    if (have > 0) {
      counts.set(key, have - 1);
      result.duplicates++;
      continue;
    }
    inputs.push(input);
  }
  return inputs;
}

const keyOf = (source: string, text: string): string => `${source}\u0000${normalizeText(text)}`;

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** The notes to adopt: new in the vault at their place, which must be a page's (never a log, root file or hidden one). */
async function plannedPages(root: string, source: ImportSource, result: ImportResult): Promise<{ rel: string; bytes: Buffer }[]> {
  const planned: { rel: string; bytes: Buffer }[] = [];
  for (const page of source.pages) {
    if (!isWikiPagePath(page.rel)) {
      result.pages.skipped.push({ path: page.rel, reason: 'its name is not a page in a vault (a root file, logs/ or a hidden folder); rename it to import it' });
      continue;
    }
    const current = await readFile(await confinedPath(root, page.rel)).catch(() => null);
    if (current === null) planned.push(page);
    else if (current.equals(page.bytes)) result.pages.unchanged++;
    else result.pages.skipped.push({ path: page.rel, reason: 'a different file of that name is in the vault, and an import never overwrites one' });
  }
  return planned;
}

async function writePages(lock: WriteLock, pages: readonly { rel: string; bytes: Buffer }[], result: ImportResult): Promise<string[]> {
  for (const page of pages) {
    const dir = path.posix.dirname(page.rel);
    if (dir !== '.') await mkdirConfined(lock.root, dir);
    // `wx`: a file a person made since the plan is theirs, never overwritten.
    await writeFile(await confinedPath(lock.root, page.rel), page.bytes, { flag: 'wx' });
    result.pages.added.push(page.rel);
  }
  return [...result.pages.added];
}
