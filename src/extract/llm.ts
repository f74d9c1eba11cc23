/**
 * LLM extraction: candidate turns in, typed facts out. The model is asked for JSON
 * `{facts: [{category, text, tags, confidence, date?, turn?}]}` with attributes as `subject:: value` and
 * relative dates made absolute from each turn's date; the reply is validated fact by fact, so one bad
 * item costs only itself, and facts below the confidence threshold are dropped. The model is reached
 * through an injectable `chat` function (the daemon's LLM executor plugs in there); by default an
 * openai client against the configured OpenAI-compatible endpoint.
 */
import { z } from 'zod';
import { VaultkeeperError } from '../core/errors.js';
import type { LlmExecutor } from '../llm/executor.js';
import { CATEGORIES, singleLine, type Category } from '../logs/factlog.js';
import { isValidDate, localStamp } from '../core/clock.js';
import { resolveRelativeDates, weekdayOf } from './dates.js';
import { cleanTags, type DatedCandidate, type ExtractedFact } from './extracted.js';
import { proseOf } from './signals.js';

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Which job asks, for an executor that counts tokens per job. */
  job: 'extract';
}

export interface ChatReply {
  /** The model's text; null when the reply held none or could not be read. */
  content: string | null;
  /** Tokens the server reports for the call, when it does. */
  tokens: number | null;
}

export type ChatFn = (request: ChatRequest) => Promise<ChatReply>;

/** One extraction call's outcome. `facts` is null when the reply was not the JSON asked for. */
export interface LlmExtraction {
  facts: ExtractedFact[] | null;
  tokens: number;
  /** Items of the reply that were not facts (no text, wrong types). */
  invalidFacts: number;
  /** Facts dropped for a confidence below the threshold. */
  lowConfidence: number;
}

export interface LlmExtractOptions {
  chat: ChatFn;
  timeZone: string;
  /** Facts with a lower confidence are dropped (config `extract.min_confidence`). */
  minConfidence: number;
}

/** Longest piece of one turn sent to the model; memories are stated in a few sentences, not pages. */
const MAX_TURN_CHARS = 4_000;
const MAX_FACT_CHARS = 500;
const MAX_TAGS = 5;

const SYSTEM_PROMPT = `You extract long-term memories about the user from their conversation with an AI assistant.
Keep only what is worth remembering for months: the user's preferences, personal facts (name, home, work, family, health, habits), decisions, corrections of earlier facts, commitments and plans with their dates, relationships, principles they want followed, skills, and notable moments.
Leave out chit-chat, requests about the task at hand ("fix this bug", "run the tests"), questions, hypotheticals, and what the assistant said unless the user confirmed it.

Each fact:
- text: one short line in the third person without naming the user ("Prefers dark roast coffee", not "The user prefers…" or "I prefer…").
- An attribute with one current value is written "subject:: value", e.g. "home city:: Lisbon", "employer:: Acme", "wife's name:: Ana".
- Relative dates become absolute, counted from the date of the turn they were said in: in a turn of Tuesday 2026-06-09, "yesterday" is 2026-06-08, "last Friday" is 2026-06-05 (the Friday before), "next Friday" is 2026-06-12 (the first Friday after), "next week" is the week of 2026-06-15. Never leave "yesterday", "tomorrow", "last week" or the like in a fact.
- category: one of ${CATEGORIES.join(', ')}.
- tags: zero to three short lowercase topic words, e.g. ["coffee"].
- confidence: 0 to 1, how sure you are that the user stated or clearly implied it (1: said outright).
- date: the absolute date (YYYY-MM-DD) the fact is about, if it is about one.
- turn: the number of the turn it comes from.

Answer with one JSON object and nothing else, e.g.
{"facts": [{"category": "preference", "text": "Prefers dark roast coffee", "tags": ["coffee"], "confidence": 0.95, "turn": 3}, {"category": "moment", "text": "Went hiking in Sintra with Ana on 2026-06-08", "tags": ["hiking"], "confidence": 0.9, "date": "2026-06-08", "turn": 3}]}
With nothing worth remembering, answer {"facts": []}.`;

/** The messages of one extraction call. Exported for tests and the run log. */
export function buildExtractionPrompt(candidates: readonly DatedCandidate[], timeZone: string): ChatMessage[] {
  const blocks = candidates.map((c) => {
    const { date, time } = localStamp(c.at, timeZone);
    const lines = [`[turn ${c.turn.index} · ${weekdayOf(date)} ${date} ${time}]`];
    if (c.context !== undefined && c.context !== '') lines.push(`(the assistant had just said: ${c.context})`);
    lines.push(`User: ${clip(proseOf(c.turn.text).trim())}`);
    return lines.join('\n');
  });
  const user = `Times are in ${timeZone}. The user's turns that may hold something worth remembering:\n\n${blocks.join('\n\n')}`;
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: user },
  ];
}

/** One call: the candidates' facts, or `facts: null` when the reply is not the JSON asked for. */
export async function extractWithLlm(candidates: readonly DatedCandidate[], options: LlmExtractOptions): Promise<LlmExtraction> {
  if (candidates.length === 0) return { facts: [], tokens: 0, invalidFacts: 0, lowConfidence: 0 };
  const reply = await options.chat({ messages: buildExtractionPrompt(candidates, options.timeZone), job: 'extract' });
  const tokens = reply.tokens ?? 0;
  const parsed = reply.content === null ? null : parseExtractionReply(reply.content, candidates, options);
  if (parsed === null) return { facts: null, tokens, invalidFacts: 0, lowConfidence: 0 };
  return { ...parsed, tokens };
}

const ReplySchema = z.union([z.object({ facts: z.array(z.unknown()) }), z.array(z.unknown())]);

const FactSchema = z.object({
  category: z.string().nullish(),
  text: z.string(),
  tags: z.union([z.array(z.unknown()), z.string()]).nullish(),
  confidence: z.union([z.number(), z.string()]).nullish(),
  date: z.string().nullish(),
  turn: z.union([z.number(), z.string()]).nullish(),
});

/** The facts of a reply, validated one by one; null when the reply is not the JSON asked for. */
export function parseExtractionReply(
  content: string,
  candidates: readonly DatedCandidate[],
  options: Pick<LlmExtractOptions, 'timeZone' | 'minConfidence'>,
): Omit<LlmExtraction, 'tokens'> | null {
  const json = readJson(content);
  if (json === undefined) return null;
  const reply = ReplySchema.safeParse(json);
  if (!reply.success) return null;
  const items = Array.isArray(reply.data) ? reply.data : reply.data.facts;
  const facts: ExtractedFact[] = [];
  let invalidFacts = 0;
  let lowConfidence = 0;
  const byIndex = new Map(candidates.map((c) => [c.turn.index, c]));
  for (const item of items) {
    const parsed = FactSchema.safeParse(item);
    if (!parsed.success) {
      invalidFacts++;
      continue;
    }
    const raw = parsed.data;
    const confidence = readConfidence(raw.confidence);
    if (confidence === null) {
      invalidFacts++;
      continue;
    }
    if (confidence !== undefined && confidence < options.minConfidence) {
      lowConfidence++;
      continue;
    }
    const turnNumber = typeof raw.turn === 'string' ? Number(raw.turn) : raw.turn;
    const source = (typeof turnNumber === 'number' ? byIndex.get(turnNumber) : undefined) ?? candidates[0]!;
    const text = factText(raw.text, raw.date, source.at, options.timeZone);
    if (text === null) {
      invalidFacts++;
      continue;
    }
    const tags = cleanTags(typeof raw.tags === 'string' ? raw.tags.split(/[,\s]+/) : (raw.tags ?? [])).slice(0, MAX_TAGS);
    facts.push({ category: readCategory(raw.category), text, tags, confidence: confidence ?? options.minConfidence, turn: source.turn.index });
  }
  return { facts, invalidFacts, lowConfidence };
}

function factText(raw: string, date: string | null | undefined, at: Date, timeZone: string): string | null {
  let text = singleLine(raw)
    .replace(/^(?:the\s+)?user(?:'s)?\s+(?=\p{Ll})/iu, (m) => (/'s/i.test(m) ? 'Their ' : ''))
    .trim();
  if (text === '' || text.length > MAX_FACT_CHARS) return null;
  // Keyed subjects stay as written (`home city:: Porto`); prose starts with a capital.
  if (!/^[^:]+::/.test(text)) text = text[0]!.toUpperCase() + text.slice(1);
  // The model was asked to; this catches what it missed.
  text = resolveRelativeDates(text, at, timeZone);
  if (typeof date === 'string' && isValidDate(date.trim()) && !/\b\d{4}-\d{2}-\d{2}\b/.test(text)) text = `${text} (${date.trim()})`;
  return text;
}

/** A number in 0..1 (percentages are scaled); undefined when absent, null when unreadable. */
function readConfidence(value: number | string | null | undefined): number | undefined | null {
  if (value === null || value === undefined) return undefined;
  const n = typeof value === 'string' ? Number(value.trim().replace(/%$/, '')) : value;
  if (!Number.isFinite(n) || n < 0) return null;
  if (n <= 1) return n;
  return n <= 100 ? n / 100 : null;
}

function readCategory(value: string | null | undefined): Category {
  const name = (value ?? '').trim().toLowerCase();
  return (CATEGORIES as readonly string[]).includes(name) ? (name as Category) : 'fact';
}

/** The JSON in a reply, fenced or wrapped in prose as models sometimes send it; undefined when none. */
function readJson(content: string): unknown {
  const attempts = [content.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content);
  if (fenced !== null) attempts.push(fenced[1]!.trim());
  const first = content.indexOf('{');
  const last = content.lastIndexOf('}');
  if (first >= 0 && last > first) attempts.push(content.slice(first, last + 1));
  for (const attempt of attempts) {
    try {
      return JSON.parse(attempt) as unknown;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

function clip(text: string): string {
  return text.length > MAX_TURN_CHARS ? `${text.slice(0, MAX_TURN_CHARS)} […]` : text;
}

// ---------------------------------------------------------------------------------------------
// The default chat function

// The SDK refuses to start without a key; keyless local servers ignore whatever is sent.

/**
 * Extraction's chat through the LLM executor (its queue, shared backoff, caps and usage counters), so
 * every LLM call of the program goes through one. A reply the executor cannot read is `content: null`:
 * the extractor then falls back to the rules for that batch.
 */
export function executorChat(executor: LlmExecutor): ChatFn {
  return async (request) => {
    try {
      const reply = await executor.chat(request.job, { messages: request.messages });
      return { content: reply.choices[0]?.message?.content ?? null, tokens: reply.usage?.total_tokens ?? null };
    } catch (error) {
      if (error instanceof VaultkeeperError && error.code === 'VK_LLM_RESPONSE') return { content: null, tokens: null };
      throw error;
    }
  };
}

