/**
 * Each keyed subject's newest row, kept in files beside the manifest by the index pass, so that a search in a fresh
 * process (a CLI search) answers supersession's lookup (store.ts `newestKeyed`) without a second LanceDB query: at a
 * million facts that query cost 10–200 ms of CPU a search that named keyed subjects (docs/benchmarks.md, ninth pass).
 *
 * The files describe one table state (store.ts `state`: its version and row count), which the head names. A search
 * whose full-text query ran at another state, a shard not the one the head names, a subject the files do not hold,
 * or a tie at the top (two rows of one date and line, which the LanceDB path breaks by its scan order) is answered
 * by LanceDB as before: the files make a search cheaper, never different. The pass writes them after the table and
 * before the manifest, so a crash between the two leaves a dirty index (a rebuild) and a stale head (unused).
 *
 * On disk (docs/formats.md): `index-keyed/head.json`, `{"version","uri","state","shards":{"<name>":"<tag>"}}`, and
 * SHARDS shards by a hash of the subject, `index-keyed/<name>.json`, `{"tag","subjects":{"<subject>":[current, all]}}`:
 * each scope's newest rows as `[date, line, key, ...keys tied with it]`, or null when the scope has none (`all` left
 * out when it is `current`). A shard is rewritten whole with a new tag; the head, written last, names the tags.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fnv1a } from '../text/fnv.js';
import { confinedPath } from '../vault/confine.js';
import { writeConfined } from '../vault/confined-write.js';
import type { EncodedBatch } from './arrow-rows.js';
import { tableColumns } from './columns.js';
import type { KeyedRow } from './newest-keyed.js';

export const NEWEST_KEYED_DIR = '.vaultkeeper/index-keyed';
const HEAD = 'head';
const VERSION = 1;
/** Shards by a hash of the subject: a search reads those of the subjects its hits name (~25 at most in the bench). */
const SHARDS = 64;

/** A keyed row with what the pass and the lookup compare: its subject and archived flag. */
export interface SubjectRow extends KeyedRow {
  subject: string;
  archived: boolean;
}

/** One scope's newest rows of a subject: date, line, then the key (more than one: a tie the files do not break). */
type Top = [string, number, ...string[]];
/** A subject's newest rows: in current rows (archived = false), then in all rows when not the same. */
type Entry = [Top | null] | [Top | null, Top | null];

interface Head {
  version: number;
  uri: string;
  state: string;
  shards: Record<string, string>;
}

interface ShardFile {
  tag: string;
  subjects: Record<string, Entry>;
}

function shardName(subject: string): string {
  return `k-${fnv1a(subject) % SHARDS}`;
}

function rel(name: string): string {
  return `${NEWEST_KEYED_DIR}/${name}.json`;
}

function readJson(root: string, name: string): unknown {
  return JSON.parse(readFileSync(path.join(root, NEWEST_KEYED_DIR, `${name}.json`), 'utf8'));
}

function readHead(root: string): Head | null {
  try {
    const head = readJson(root, HEAD) as Partial<Head> | null;
    if (head?.version !== VERSION || typeof head.uri !== 'string' || typeof head.state !== 'string' || typeof head.shards !== 'object' || head.shards === null) return null;
    return head as Head;
  } catch {
    return null;
  }
}

/** A shard's subjects, or null when missing, unreadable or not the one the head names. */
function readShard(root: string, name: string, tag: string): Record<string, Entry> | null {
  try {
    const shard = readJson(root, name) as Partial<ShardFile> | null;
    return shard?.tag === tag && typeof shard.subjects === 'object' && shard.subjects !== null ? shard.subjects : null;
  } catch {
    return null;
  }
}

/** Folds a row into a scope's newest: later date, then later line, wins; an equal date and line is a tie. */
function fold(top: Top | null, row: SubjectRow): Top {
  if (top === null || row.date > top[0] || (row.date === top[0] && row.line > top[1])) return [row.date, row.line, row.key];
  if (row.date === top[0] && row.line === top[1] && !top.includes(row.key, 2)) return [...top, row.key];
  return top;
}

function foldEntry(entry: Entry | undefined, row: SubjectRow): Entry {
  const current = entry?.[0] ?? null;
  const all = entry === undefined ? null : entry.length === 2 ? entry[1] : entry[0];
  const nextCurrent = row.archived ? current : fold(current, row);
  const nextAll = fold(all, row);
  return sameTop(nextCurrent, nextAll) ? [nextCurrent] : [nextCurrent, nextAll];
}

function sameTop(a: Top | null, b: Top | null): boolean {
  return a === b || (a !== null && b !== null && a.length === b.length && a.every((value, i) => value === b[i]));
}

/** Every key an entry names: a row whose deletion changes the subject's newest. */
function entryKeys(entry: Entry): string[] {
  return entry.flatMap((top) => (top === null ? [] : (top.slice(2) as string[])));
}

/**
 * The lookup a search makes (store.ts `newestKeyed` without an extra filter): the newest row of each subject at the
 * table state the search ran at, or null when the files cannot say (then LanceDB answers). What was read is kept for
 * that state: a warm process reads the files again only once the table changed.
 */
export class NewestKeyedFiles {
  private held: { state: string; head: Head | null; shards: Map<string, Record<string, Entry> | null> } | null = null;

  constructor(
    private readonly root: string,
    /** The index location as the manifest records it (location.ts `recordedUri`). */
    private readonly uri: string,
  ) {}

  newest(state: string, archived: boolean, subjects: readonly string[]): Map<string, KeyedRow> | null {
    if (this.held?.state !== state) {
      const head = readHead(this.root);
      this.held = { state, head: head !== null && head.state === state && head.uri === this.uri ? head : null, shards: new Map() };
    }
    const { head, shards } = this.held;
    if (head === null) return null;
    const out = new Map<string, KeyedRow>();
    for (const subject of subjects) {
      const name = shardName(subject);
      let shard = shards.get(name);
      if (shard === undefined) {
        const tag = head.shards[name];
        shard = tag === undefined ? null : readShard(this.root, name, tag);
        shards.set(name, shard);
      }
      const entry = shard?.[subject];
      if (entry === undefined) return null;
      const top = archived && entry.length === 2 ? entry[1] : entry[0];
      if (top === null) continue; // no row in this scope: the LanceDB path finds none either
      if (top.length !== 3) return null;
      out.set(subject, { date: top[0], line: top[1], key: top[2]! });
    }
    return out;
  }
}

/** What the pass needs of the table (store.ts). */
export interface KeyedTable {
  state(): Promise<string | null>;
  /** Every keyed row (`subjects` null) or those of the subjects named. */
  subjectRows(subjects: readonly string[] | null): Promise<SubjectRow[]>;
}

/**
 * The files' update by one index pass. Begun before the pass changes the table: when the head describes the table
 * as it is then, the pass folds in the rows it adds, and reads again from the table the subjects whose newest row
 * it deletes; when the table is new (a rebuild) it folds in every row; otherwise (no files yet, or a crash left them
 * stale) it reads every keyed row of the table once at the end.
 */
export class NewestKeyedPass {
  private mode: 'fold' | 'read' = 'read';
  private head: Head | null = null;
  private readonly shards = new Map<string, Record<string, Entry>>();
  private readonly changed = new Set<string>();
  private readonly reread = new Set<string>();

  private constructor(
    private readonly root: string,
    private readonly uri: string,
  ) {}

  /** `fresh`: the table was just cleared or created, so every row it will hold goes through `add`. */
  static async begin(root: string, uri: string, table: KeyedTable, fresh: boolean): Promise<NewestKeyedPass> {
    const pass = new NewestKeyedPass(root, uri);
    if (fresh) {
      pass.mode = 'fold';
      await clearNewestKeyed(root);
      return pass;
    }
    const head = readHead(root);
    // A table that cannot say its state is the pass's to report (or rebuild) as it writes: here, only no base.
    const state = await table.state().catch(() => null);
    if (head !== null && state !== null && head.state === state && head.uri === uri) {
      pass.mode = 'fold';
      pass.head = head;
    }
    return pass;
  }

  /** The keyed rows of encoded batches (the table's columns, tableColumns). */
  addBatches(batches: readonly EncodedBatch[]): void {
    if (this.mode !== 'fold') return;
    for (const batch of batches) this.addRows(keyedOfBatch(batch));
  }

  addRows(rows: Iterable<{ key: string; subject: string; date: string | null; line: number; archived: boolean }>): void {
    if (this.mode !== 'fold') return;
    for (const row of rows) {
      if (row.subject === '') continue;
      const name = shardName(row.subject);
      const shard = this.shard(name);
      if (shard === null) return;
      shard[row.subject] = foldEntry(shard[row.subject], { ...row, date: row.date ?? '' });
      this.changed.add(name);
    }
  }

  /**
   * Rows the pass deletes: a subject whose newest row is among them is read again from the table at the end. Called
   * after the pass's `add`s: a row rewritten under its key (deleted, then added) is then read again too.
   */
  remove(keys: readonly string[]): void {
    if (this.mode !== 'fold' || keys.length === 0) return;
    const gone = new Set(keys);
    for (const name of new Set([...Object.keys(this.head?.shards ?? {}), ...this.shards.keys()])) {
      const shard = this.shard(name);
      if (shard === null) return;
      for (const [subject, entry] of Object.entries(shard)) if (entryKeys(entry).some((key) => gone.has(key))) this.reread.add(subject);
    }
  }

  /** Writes the shards that changed, then the head for the table's state now. Called once the table is written. */
  async write(table: KeyedTable): Promise<void> {
    const state = await table.state();
    if (state === null) return clearNewestKeyed(this.root);
    for (const subject of this.reread) if (this.shard(shardName(subject)) === null) break;
    if (this.mode === 'read') {
      this.shards.clear();
      this.head = null;
      for (const row of await table.subjectRows(null)) this.fold(row);
    } else if (this.reread.size > 0) {
      const subjects = [...this.reread];
      for (const subject of subjects) {
        const name = shardName(subject);
        delete this.shards.get(name)![subject];
        this.changed.add(name);
      }
      for (const row of await table.subjectRows(subjects)) this.fold(row);
    }
    if (this.head !== null && this.changed.size === 0 && this.head.state === state) return;
    const tags: Record<string, string> = this.head === null ? {} : { ...this.head.shards };
    const names = this.head === null ? [...this.shards.keys()] : [...this.changed];
    for (const name of names) {
      const subjects = this.shards.get(name)!;
      if (Object.keys(subjects).length === 0) {
        delete tags[name];
        await rm(await confinedPath(this.root, rel(name)), { force: true });
        continue;
      }
      const tag = randomBytes(6).toString('base64url');
      await writeConfined(this.root, rel(name), JSON.stringify({ tag, subjects } satisfies ShardFile));
      tags[name] = tag;
    }
    await writeConfined(this.root, rel(HEAD), JSON.stringify({ version: VERSION, uri: this.uri, state, shards: tags } satisfies Head));
  }

  private fold(row: SubjectRow): void {
    const name = shardName(row.subject);
    const shard = this.shards.get(name) ?? {};
    this.shards.set(name, shard);
    shard[row.subject] = foldEntry(shard[row.subject], row);
    this.changed.add(name);
  }

  /** A shard's subjects as the pass holds them; read from disk once (null, and the pass reads the table at the end, when it cannot be). */
  private shard(name: string): Record<string, Entry> | null {
    const held = this.shards.get(name);
    if (held !== undefined) return held;
    const tag = this.head?.shards[name];
    const read = tag === undefined ? {} : readShard(this.root, name, tag);
    if (read === null) {
      this.mode = 'read';
      return null;
    }
    this.shards.set(name, read);
    return read;
  }
}

/** Deletes the files, the head first (a rebuild starts from none: a new table may reach an old head's state). */
export async function clearNewestKeyed(root: string): Promise<void> {
  await rm(await confinedPath(root, rel(HEAD)), { force: true });
  const dir = await confinedPath(root, NEWEST_KEYED_DIR, 'folder');
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) if (name.endsWith('.json')) await rm(path.join(dir, name), { force: true });
}

const COLUMNS = tableColumns(null).map((column) => column.name);
const AT = { key: COLUMNS.indexOf('key'), line: COLUMNS.indexOf('line'), date: COLUMNS.indexOf('date'), archived: COLUMNS.indexOf('archived'), subject: COLUMNS.indexOf('subject') };
const utf8 = new TextDecoder();

/** The rows of an encoded batch that have a subject, read from its buffers (arrow-rows.ts) without decoding the rest. */
export function keyedOfBatch(batch: EncodedBatch): SubjectRow[] {
  const subject = batch.columns[AT.subject];
  const key = batch.columns[AT.key];
  const line = batch.columns[AT.line];
  const date = batch.columns[AT.date];
  const archived = batch.columns[AT.archived];
  if (subject?.kind !== 'utf8' || key?.kind !== 'utf8' || line?.kind !== 'int32' || date?.kind !== 'utf8' || archived?.kind !== 'bool') {
    throw new Error('an encoded batch without the table columns');
  }
  const text = (column: typeof subject, i: number): string => utf8.decode(column.data.subarray(column.offsets[i]!, column.offsets[i + 1]!));
  const out: SubjectRow[] = [];
  for (let i = 0; i < batch.length; i++) {
    if (subject.offsets[i + 1] === subject.offsets[i]) continue;
    // A null date is stored as an empty string with its validity bit off: either way '' (store.ts reads it so).
    out.push({
      subject: text(subject, i),
      key: text(key, i),
      line: line.data[i]!,
      date: text(date, i),
      archived: (archived.data[i >> 3]! & (1 << (i & 7))) !== 0,
    });
  }
  return out;
}
