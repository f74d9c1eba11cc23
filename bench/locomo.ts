/**
 * LoCoMo (Maharana et al., ACL 2024) as vaults: each session of a conversation becomes the day log of
 * the session's date, one fact per dialog turn ("Speaker: text"), with a side map from fact id to the
 * turn's dialog id so retrieved facts can be scored against the questions' evidence.
 * The data is read at run time from ../shared/data/locomo/ and never copied (CC BY-NC 4.0).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { canonicalFact, formatBatchHeader, formatFactLine, logRelPath, writtenText } from '#src/logs/factlog.js';
import { factId } from '#src/logs/ids.js';
import { initVault } from '#src/vault/init.js';

const Turn = z.object({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional(),
});
export type Turn = z.infer<typeof Turn>;

const Question = z.object({
  question: z.string(),
  answer: z.unknown().optional(),
  category: z.number().int(),
  evidence: z.array(z.string()).default([]),
});

const Conversation = z.object({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(Question),
});

const AuditEntry = z.object({
  question_id: z.string(),
  question: z.string(),
  category: z.number().int(),
  error_type: z.string(),
  cited_evidence: z.array(z.string()),
  correct_evidence: z.array(z.string()),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export interface Session {
  index: number;
  date: string;
  time: string;
  turns: Turn[];
}

export interface LocomoQuestion {
  /** `locomo_<conversation>_qa<index>`, the audit's id scheme (both 0-based). */
  id: string;
  question: string;
  category: number;
  /** The evidence as published, normalized to `D<session>:<turn>`. */
  evidence: string[];
}

export interface LocomoConversation {
  index: number;
  sampleId: string;
  speakers: [string, string];
  sessions: Session[];
  questions: LocomoQuestion[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → { date: "2023-05-08", time: "13:56" }. */
export function parseSessionDate(value: string): { date: string; time: string } {
  const match = /^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(value);
  if (match === null) throw new Error(`unrecognized LoCoMo session date '${value}'`);
  const [, h, min, ampm, day, monthName, year] = match;
  const month = MONTHS.findIndex((m) => m.startsWith(monthName!.toLowerCase()) && monthName!.length >= 3);
  if (month === -1) throw new Error(`unrecognized month in LoCoMo session date '${value}'`);
  let hour = Number(h) % 12;
  if (ampm!.toLowerCase() === 'p') hour += 12;
  const pad = (n: number): string => String(n).padStart(2, '0');
  return { date: `${year}-${pad(month + 1)}-${pad(Number(day))}`, time: `${pad(hour)}:${min}` };
}

/**
 * Evidence ids as written in the data, normalized to `D<session>:<turn>`: "D10: 3", "D:11:26",
 * lists in one string ("D8:6; D9:17", "D9:1 D4:4"), and ranges ("D1:3-5", "D1:3-D1:5"). Anything
 * without a session and a turn (e.g. "D") is dropped. Order is kept, duplicates removed.
 */
export function normalizeEvidence(raw: readonly string[]): string[] {
  const out: string[] = [];
  const add = (id: string): void => {
    if (!out.includes(id)) out.push(id);
  };
  for (const entry of raw) {
    const text = entry.replace(/\s+/g, ' ').trim();
    const re = /D\s*:?\s*(\d+)\s*:\s*(\d+)(?:\s*[-–]\s*(?:D\s*:?\s*(\d+)\s*:\s*)?(\d+))?/gi;
    for (const match of text.matchAll(re)) {
      const session = Number(match[1]);
      const first = Number(match[2]);
      const endSession = match[3] === undefined ? session : Number(match[3]);
      const last = match[4] === undefined ? first : Number(match[4]);
      if (endSession !== session || last < first || last - first > 50) {
        add(`D${session}:${first}`);
        if (match[4] !== undefined) add(`D${endSession}:${last}`);
        continue;
      }
      for (let turn = first; turn <= last; turn++) add(`D${session}:${turn}`);
    }
  }
  return out;
}

export async function readLocomo(file: string): Promise<LocomoConversation[]> {
  const data = z.array(Conversation).parse(JSON.parse(await readFile(file, 'utf8')));
  return data.map((conv, index) => toConversation(conv, index));
}

function toConversation(conv: z.infer<typeof Conversation>, index: number): LocomoConversation {
  const c = conv.conversation;
  const sessions: Session[] = [];
  for (const key of Object.keys(c)) {
    const match = /^session_(\d+)$/.exec(key);
    if (match === null) continue;
    const n = Number(match[1]);
    const turns = z.array(Turn).parse(c[key]);
    if (turns.length === 0) continue;
    const when = c[`session_${n}_date_time`];
    if (typeof when !== 'string') throw new Error(`${conv.sample_id}: session ${n} has no date`);
    sessions.push({ index: n, ...parseSessionDate(when), turns });
  }
  sessions.sort((a, b) => a.index - b.index);
  return {
    index,
    sampleId: conv.sample_id,
    speakers: [String(c.speaker_a ?? ''), String(c.speaker_b ?? '')],
    sessions,
    questions: conv.qa.map((q, i) => ({
      id: `locomo_${index}_qa${i}`,
      question: q.question,
      category: q.category,
      evidence: normalizeEvidence(q.evidence),
    })),
  };
}

export async function readAudit(file: string): Promise<AuditEntry[]> {
  return z.array(AuditEntry).parse(JSON.parse(await readFile(file, 'utf8')));
}

/**
 * How the audit changes the question set for retrieval. WRONG_CITATION: the answer is right but the
 * evidence is not, so the audit's `correct_evidence` replaces it. Every other error type says the gold
 * answer is wrong (hallucinated, wrong date, wrong person, ambiguous, incomplete); the question then
 * does not reliably ask for what its evidence holds, so it is dropped from the corrected set.
 */
export function applyAudit(
  questions: readonly LocomoQuestion[],
  audit: readonly AuditEntry[],
): { questions: LocomoQuestion[]; recited: number; dropped: number; unmatched: string[] } {
  const byId = new Map(audit.map((entry) => [entry.question_id, entry]));
  const out: LocomoQuestion[] = [];
  let recited = 0;
  let dropped = 0;
  const matched = new Set<string>();
  for (const q of questions) {
    const entry = byId.get(q.id);
    if (entry === undefined || entry.question.trim() !== q.question.trim()) {
      out.push(q);
      continue;
    }
    matched.add(q.id);
    if (entry.error_type === 'WRONG_CITATION') {
      recited++;
      out.push({ ...q, evidence: normalizeEvidence(entry.correct_evidence) });
    } else {
      dropped++;
    }
  }
  const ids = new Set(questions.map((q) => q.id));
  const unmatched = audit.filter((e) => ids.has(e.question_id) && !matched.has(e.question_id)).map((e) => e.question_id);
  return { questions: out, recited, dropped, unmatched };
}

/** The text a dialog turn is remembered as. */
export function turnText(turn: Turn, captions: boolean): string {
  const caption = captions && turn.blip_caption !== undefined ? ` [shares ${turn.blip_caption}]` : '';
  return `${turn.speaker}: ${turn.text}${caption}`;
}

export interface LoadedConversation {
  root: string;
  /** fact id → dialog id */
  dialogIds: Map<string, string>;
  turns: number;
}

/**
 * A new vault holding the conversation: one day log per session, written in the writer's format
 * (`formatBatchHeader`, `formatFactLine`, `factId`), so the parser reads back exactly these ids.
 */
export async function loadConversation(root: string, conv: LocomoConversation, options: { captions?: boolean } = {}): Promise<LoadedConversation> {
  await initVault(root);
  const dialogIds = new Map<string, string>();
  let turns = 0;
  for (const file of conversationLogs(conv, options)) {
    await mkdir(path.dirname(path.join(root, file.rel)), { recursive: true });
    await writeFile(path.join(root, file.rel), file.content);
    for (const [id, dia] of file.dialogIds) dialogIds.set(id, dia);
    turns += file.dialogIds.size;
  }
  return { root, dialogIds, turns };
}

/** The day logs of a conversation, pure. LoCoMo never puts two sessions of one conversation on a date; if it did, they would share a file. */
export function conversationLogs(conv: LocomoConversation, options: { captions?: boolean } = {}): Array<{ rel: string; content: string; dialogIds: Map<string, string> }> {
  const byDate = new Map<string, { lines: string[]; ordinals: Map<string, number>; dialogIds: Map<string, string> }>();
  for (const session of conv.sessions) {
    let day = byDate.get(session.date);
    if (day === undefined) {
      day = { lines: [`# ${session.date}`, ''], ordinals: new Map(), dialogIds: new Map() };
      byDate.set(session.date, day);
    } else {
      day.lines.push('');
    }
    const source = `locomo/${conv.sampleId}/session_${session.index}`;
    day.lines.push(formatBatchHeader(session.time, source));
    for (const turn of session.turns) {
      const fact = canonicalFact({ text: turnText(turn, options.captions ?? false) });
      const key = `${session.time}\u0000${source}\u0000${fact.text}`;
      const ordinal = day.ordinals.get(key) ?? 0;
      day.ordinals.set(key, ordinal + 1);
      const id = factId(session.date, session.time, source, writtenText(fact.text), ordinal);
      day.lines.push(formatFactLine(fact, id));
      day.dialogIds.set(id, normalizeEvidence([turn.dia_id])[0] ?? turn.dia_id);
    }
  }
  return [...byDate.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, day]) => ({ rel: logRelPath(date), content: `${day.lines.join('\n')}\n`, dialogIds: day.dialogIds }));
}
