/**
 * Transcripts into the vault: read, scan, extract, then append through `vault.remember` under a header
 * naming the transcript, on the date the conversation happened (the turn's time in the vault's time
 * zone, else the file's mtime). A fact already extracted from the same transcript on that date, or one
 * that repeats a tombstone, is not appended again. An LLM that cannot be used hands over to the rules
 * (extractor.ts), and the result says so in `fallback`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../core/errors.js';
import { readLog, type AppendedFact, type FactInput } from '../logs/factlog.js';
import { redactFindings, scanSecrets } from '../secrets/scan.js';
import { normalizeText } from '../text/normalize.js';
import { readTombstones } from '../tombstones/tombstones.js';
import type { Vault } from '../vault/vault.js';
import { localDate } from './dates.js';
import type { DatedCandidate, ExtractedFact } from './extracted.js';
import { addCounts, createExtractor, emptyCounts, type ExtractionCounts, type Extractor, type ExtractorOptions } from './extractor.js';
import { scanTurns } from './signals.js';
import { readTranscript, UnknownTranscriptError, type Transcript, type TranscriptFormat } from './transcript.js';

export interface IngestProgress {
  file: string;
  /** Files finished so far. */
  done: number;
  total: number;
}

export interface IngestOptions extends ExtractorOptions {
  onProgress?: ((progress: IngestProgress) => void) | undefined;
}

export interface IngestCounts {
  files: number;
  turns: number;
  /** User turns the signal scan looked at. */
  scanned: number;
  /** Turns the scan passed on to extraction. */
  candidates: number;
  /** Facts appended to the logs. */
  facts: number;
  /** Transcript lines (or messages) that could not be read. */
  skipped_lines: number;
  llm_calls: number;
}

export interface TranscriptReport {
  source: string;
  format: TranscriptFormat;
  turns: number;
  scanned: number;
  candidates: number;
  skipped_lines: number;
  /** Facts extracted but not appended: already in the log from this transcript. */
  duplicates: number;
  /** Facts extracted but not appended: they repeat a forgotten (tombstoned) fact. */
  forgotten: number;
  /** Facts extracted but not appended: they held a secret (capture.secrets: refuse). */
  refused: number;
  appended: AppendedFact[];
  counts: ExtractionCounts;
}

export interface IngestFileReport {
  file: string;
  source: string;
  format: TranscriptFormat;
  turns: number;
  candidates: number;
  facts: number;
  duplicates: number;
  skipped_lines: number;
  dates: string[];
}

export interface IngestResult extends IngestCounts {
  /** Files found in a named folder that are in no transcript format (a named file in none is an error). */
  unknown: string[];
  /** The extractor configured: the LLM, or the rules (none configured, or --offline). */
  mode: 'llm' | 'rules';
  /** Why the rules took over from the LLM (it could not be used; llm.fallback: offline), else null. */
  fallback: string | null;
  duplicates: number;
  forgotten: number;
  /** Facts left out for holding a secret (capture.secrets: refuse). */
  refused: number;
  tokens: number;
  invalid_replies: number;
  low_confidence: number;
  transcripts: IngestFileReport[];
  /** The facts appended, in order. */
  appended: AppendedFact[];
}

/** Ingests transcript files (a folder stands for the transcripts in it). */
export async function ingestFiles(vault: Vault, files: readonly string[], options: IngestOptions = {}): Promise<IngestResult> {
  if (files.length === 0) throw new UsageError('ingest needs at least one transcript file', 'e.g. vaultkeeper ingest ~/.claude/projects/my-project/SESSION.jsonl');
  const expanded = await expandFiles(files);
  // Every file is read before anything is appended: a named file in no known format stops the ingest whole.
  const read: Array<{ file: string; mtime: Date; transcript: Transcript }> = [];
  const unknown: string[] = [];
  for (const { file, named } of expanded) {
    const info = await stat(file);
    try {
      read.push({ file, mtime: info.mtime, transcript: await readTranscript(await readFile(file), file) });
    } catch (error) {
      if (!(error instanceof UnknownTranscriptError) || named) throw error;
      unknown.push(file);
    }
  }
  const extractor = createExtractor(vault.ctx, options);
  const result: IngestResult = {
    files: 0,
    turns: 0,
    scanned: 0,
    candidates: 0,
    facts: 0,
    skipped_lines: 0,
    llm_calls: 0,
    mode: extractor.mode,
    fallback: null,
    duplicates: 0,
    forgotten: 0,
    refused: 0,
    tokens: 0,
    invalid_replies: 0,
    low_confidence: 0,
    transcripts: [],
    appended: [],
    unknown,
  };
  const counts = emptyCounts();
  for (const [index, { file, mtime, transcript }] of read.entries()) {
    const report = await ingestTranscript(vault, transcript, { source: sourceFor(file, transcript), fallbackAt: transcript.startedAt ?? mtime, extractor });
    result.files++;
    result.turns += report.turns;
    result.scanned += report.scanned;
    result.candidates += report.candidates;
    result.facts += report.appended.length;
    result.skipped_lines += report.skipped_lines;
    result.duplicates += report.duplicates;
    result.forgotten += report.forgotten;
    result.refused += report.refused;
    result.appended.push(...report.appended);
    addCounts(counts, report.counts);
    result.transcripts.push({
      file,
      source: report.source,
      format: report.format,
      turns: report.turns,
      candidates: report.candidates,
      facts: report.appended.length,
      duplicates: report.duplicates,
      skipped_lines: report.skipped_lines,
      dates: [...new Set(report.appended.map((f) => f.date))].sort(),
    });
    options.onProgress?.({ file, done: index + 1, total: read.length });
  }
  result.fallback = extractor.fallback;
  result.llm_calls = counts.llm_calls;
  result.tokens = counts.tokens;
  result.invalid_replies = counts.invalid_replies;
  result.low_confidence = counts.low_confidence;
  return result;
}

export interface TranscriptOptions {
  source: string;
  /** When a turn has no timestamp: the transcript file's mtime. */
  fallbackAt: Date;
  extractor: Extractor;
}

/** Scans, extracts and appends one transcript's facts. */
export async function ingestTranscript(vault: Vault, transcript: Transcript, options: TranscriptOptions): Promise<TranscriptReport> {
  const scan = scanTurns(transcript.turns);
  const candidates: DatedCandidate[] = scan.candidates.map((c) => ({ ...c, at: c.turn.at ?? options.fallbackAt }));
  const extraction = candidates.length === 0 ? { ...emptyCounts(), facts: [] } : await options.extractor.extract(candidates);
  const { facts, ...counts } = extraction;
  const report: TranscriptReport = {
    source: options.source,
    format: transcript.format,
    turns: transcript.turns.length,
    scanned: scan.scanned,
    candidates: candidates.length,
    skipped_lines: transcript.skippedLines,
    duplicates: 0,
    forgotten: 0,
    refused: 0,
    appended: [],
    counts,
  };
  if (facts.length === 0) return report;

  const atOf = new Map(candidates.map((c) => [c.turn.index, c.at]));
  const byDate = new Map<string, { at: Date; facts: ExtractedFact[] }>();
  for (const fact of facts) {
    const at = atOf.get(fact.turn) ?? options.fallbackAt;
    const date = localDate(at, vault.ctx.timeZone);
    const group = byDate.get(date) ?? { at, facts: [] };
    if (at < group.at) group.at = at;
    group.facts.push(fact);
    byDate.set(date, group);
  }
  const tombstones = await readTombstones(vault.root);
  for (const [date, group] of [...byDate.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const seen = await extractedBefore(vault.root, date, options.source);
    const inputs: FactInput[] = [];
    for (const fact of group.facts) {
      // Compared as it would be stored: a fact whose secret the log holds as a marker is still a duplicate.
      const key = normalizeText(redactFindings(fact.text, await scanSecrets(fact.text)).text);
      if (seen.has(key)) {
        report.duplicates++;
        continue;
      }
      seen.add(key);
      if (tombstones.repeats(fact.text)) {
        report.forgotten++;
        continue;
      }
      inputs.push({ text: fact.text, category: fact.category, tags: fact.tags, date });
    }
    if (inputs.length === 0) continue;
    // A fact holding a secret is stored redacted, or left out under capture.secrets: refuse (counted, never shown).
    const { facts: appended, refused } = await vault.remember(inputs, { source: options.source, now: group.at, skipRefused: true });
    report.appended.push(...appended);
    report.refused += refused.length;
  }
  return report;
}

/** Normalized texts of the facts a source already has in the log of `date`. */
async function extractedBefore(root: string, date: string, source: string): Promise<Set<string>> {
  const log = await readLog(root, date);
  return new Set(log.facts.filter((f) => f.source === source).map((f) => normalizeText(f.text)));
}

/** Agents whose transcripts name their session: the source is `<agent>/<session id, 8 characters>`. */
const SESSION_AGENTS: ReadonlySet<TranscriptFormat> = new Set(['claude-code', 'codex', 'gemini', 'openclaw', 'continue']);

/** `<agent>/<session id, 8 characters>` for an agent's session, else `ingest/<file name>`. */
export function sourceFor(file: string, transcript: Transcript): string {
  if (transcript.format === 'claude-code' || (SESSION_AGENTS.has(transcript.format) && transcript.sessionId !== undefined)) {
    const id = transcript.sessionId ?? path.basename(file, path.extname(file));
    return `${transcript.format}/${id.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8) || 'session'}`;
  }
  if (transcript.format === 'cursor') return `cursor/${path.basename(path.dirname(file)).slice(0, 12)}`;
  return `ingest/${path.basename(file)}`;
}

const TRANSCRIPT_EXTENSIONS = new Set(['.jsonl', '.json', '.md', '.markdown', '.txt', '.vscdb']);

/** The files named, and those in the folders named (`named: false`: they may be other files than transcripts). */
async function expandFiles(files: readonly string[]): Promise<Array<{ file: string; named: boolean }>> {
  const out: Array<{ file: string; named: boolean }> = [];
  for (const given of files) {
    const file = path.resolve(given);
    const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') throw new UsageError(`no such file: ${given}; nothing was ingested`, 'give the path of a transcript file');
      throw error;
    });
    if (info.isDirectory()) {
      const entries = await readdir(file, { recursive: true, withFileTypes: true });
      out.push(
        ...entries
          .filter((e) => e.isFile() && TRANSCRIPT_EXTENSIONS.has(path.extname(e.name).toLowerCase()))
          .map((e) => path.join(e.parentPath, e.name))
          .sort()
          .map((found) => ({ file: found, named: false })),
      );
    } else {
      out.push({ file, named: true });
    }
  }
  const seen = new Set<string>();
  return out.filter(({ file }) => !seen.has(file) && seen.add(file));
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

export function decode(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}
