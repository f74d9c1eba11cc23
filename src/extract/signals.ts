/**
 * The cheap first pass: which user turns may hold something worth remembering (a preference, a personal
 * fact, a decision, a correction, "remember …", a date). Turns with none of these cost no API call.
 * It errs towards recall; the extractors behind it decide what is actually a fact.
 */
import type { Turn } from './transcript.js';

export type SignalKind = 'remember' | 'preference' | 'personal' | 'relationship' | 'decision' | 'correction' | 'commitment' | 'date';

export interface Candidate {
  turn: Turn;
  signals: SignalKind[];
  /** The assistant turn just before, which a short reply ("yes, do that") may depend on. */
  context?: string | undefined;
}

export interface ScanResult {
  /** User turns looked at. */
  scanned: number;
  candidates: Candidate[];
}

/** Things in a chat about code that are not facts about the person ("my test is failing"). */
export const WORK_NOUNS = new Set(
  (
    'app application answer api argument array assumption bad branch bug build cache change class code commit component computer concern config ' +
    'connection console container database db dependency deploy diff directory doc docs endpoint environment error exception feeling file fix ' +
    'folder function goal guess hope idea impression implementation import input instance intent interpretation issue job laptop line log loop ' +
    'machine main method mistake model module network note object opinion output package page patch path point pr problem process program ' +
    'project prompt pull query question reason repo repository request response result route schema screen script server service setup ' +
    'solution source suggestion suspicion terminal test tests theory thought type understanding version view worry'
  ).split(' '),
);

const MONTH = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const KIN =
  '(?:wife|husband|partner|girlfriend|boyfriend|spouse|fianc[ée]e?|son|daughter|kids?|children|baby|mother|mom|mum|father|dad|parents?|brother|sister|siblings?|' +
  'grand(?:mother|father|ma|pa|parents?)|aunt|uncle|cousin|niece|nephew|friend|best friend|colleague|coworkers?|co-workers?|roommate|neighbou?r|boss|manager|mentor)';

const PATTERNS: ReadonlyArray<readonly [SignalKind, RegExp]> = [
  ['remember', /\b(?:remember|memori[sz]e|don'?t forget|do not forget|keep in mind|note that|take note|for future reference|for the record|fyi|just so you know)\b/i],
  ['preference', /\bI\s+(?:really\s+|generally\s+|usually\s+|always\s+|much\s+|absolutely\s+|kind of\s+|do(?:n'?t|\s+not)\s+|never\s+)?(?:prefer|like|love|enjoy|hate|dislike|detest|despise|can'?t stand|avoid)\b/i],
  ['preference', /\b(?:favou?rite|I'?d rather|I would rather|I'?m (?:a (?:big )?fan of|into|not a fan of))\b/i],
  ['preference', /\b(?:always|never|don'?t ever|please don'?t)\s+(?:use|write|add|call|format|put|run|suggest|recommend|reply|answer|respond)\b/i],
  ['personal', /\bmy\s+(?:name|birthday|age|job|role|title|occupation|profession|email|phone|address|home|hometown|house|apartment|flat|city|country|town|time ?zone|car|bike|dog|cat|pets?|company|employer|salary|doctor|dentist|therapist|diet|allerg\w*|hobby|hobbies|(?:native |first )?language|religion|school|university|degree|major|height|weight|blood type|nationality)\b/i],
  ['personal', /\bI(?:'m|\s+am)\s+(?:a(?!\s+(?:bit|little|few|lot|tad)\b)|an|from|based|allergic|vegetarian|vegan|pescatarian|married|engaged|single|divorced|widowed|pregnant|retired|unemployed|self-employed|left-handed|right-handed|colou?r-?blind|diabetic|lactose|gluten|learning|originally|\d{1,3}\s+years?\s+old)\b/i],
  ['personal', /\bI\s+(?:live|work|worked|grew up|was born|studied|graduated|speak|own|drive|play|practi[cs]e|volunteer|teach)\b/i],
  ['personal', /\bI\s+(?:moved|relocated)\s+(?:to|from)\s+[A-Z]/],
  ['personal', /\b(?:call me|my name'?s|I go by)\b/i],
  ['relationship', new RegExp(`\\bmy\\s+${KIN}\\b`, 'i')],
  ['decision', /\b(?:I|we)(?:'ve|\s+have)?\s+(?:decided|chose|chosen|picked|settled on|agreed|committed to|opted)\b/i],
  ['decision', /\b(?:let'?s|we'?ll|I'?ll|we will|I will|we'?re|we are|I'?m|I am)\s+(?:go(?:ing)? with|switch(?:ing)? to|migrat(?:e|ing) to|stick(?:ing)? with)\b/i],
  ['decision', /\b(?:from now on|going forward|in the future|henceforth)\b/i],
  ['correction', /\b(?:correction|I meant|that'?s (?:wrong|incorrect|not (?:right|true|correct))|not anymore|no longer|I changed my mind|scratch that|to clarify)\b/i],
  ['correction', /\bactually,?\s+(?:I|my|we|it'?s|that'?s|the)\b/i],
  ['commitment', /\b(?:deadline|due (?:on|by|date)|appointment|meeting|interview|flight|trip|vacation|holiday|birthday|anniversary|wedding|conference|exam|surgery|promised|I owe)\b/i],
  ['date', new RegExp(`\\b(?:yesterday|tomorrow|tonight|last night|(?:last|next|this|coming)\\s+(?:week|weekend|month|year|${WEEKDAY})|on\\s+${WEEKDAY}|${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?\\b|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b|\\d{4}-\\d{2}-\\d{2}|\\d+\\s+(?:days?|weeks?|months?|years?)\\s+ago|in\\s+\\d+\\s+(?:days?|weeks?|months?))`, 'i')],
];

/** "my X is Y" about the person, not about the code: X is not a work noun. */
const MY_X_IS_RE = /\bmy\s+([a-z][a-z'-]*(?:\s+[a-z][a-z'-]*)?)\s+(?:is|are|was|were)\b/gi;

/** The prose of a turn: code blocks, inline code, quotes, URLs and log-like lines taken out. */
export function proseOf(text: string): string {
  return text
    .replace(/(^|\n)\s*(```|~~~)[\s\S]*?(\n\s*\2[^\n]*|$)/g, '\n')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .split('\n')
    .filter((line) => !/^\s*>/.test(line) && !/^\s+at\s+\S+.*[:(]\d+/.test(line) && !/^\s*(?:[$#]\s|\+\+\+|---\s|@@)/.test(line))
    .join('\n');
}

/** The kinds of signal a text holds (none: nothing worth an extraction call). */
export function signalsOf(text: string): SignalKind[] {
  const prose = proseOf(text);
  const kinds = new Set<SignalKind>();
  for (const [kind, re] of PATTERNS) if (!kinds.has(kind) && re.test(prose)) kinds.add(kind);
  if (!kinds.has('personal')) {
    for (const match of prose.matchAll(MY_X_IS_RE)) {
      const words = match[1]!.toLowerCase().split(/\s+/);
      if (!words.some((w) => WORK_NOUNS.has(w))) {
        kinds.add('personal');
        break;
      }
    }
  }
  return [...kinds];
}

const CONTEXT_CHARS = 400;

/** Scans the user turns of a transcript; each candidate carries the assistant turn before it as context. */
export function scanTurns(turns: readonly Turn[]): ScanResult {
  const candidates: Candidate[] = [];
  let scanned = 0;
  let previous: Turn | undefined;
  for (const turn of turns) {
    if (turn.role === 'user') {
      scanned++;
      const signals = signalsOf(turn.text);
      if (signals.length > 0) {
        const context = previous?.role === 'assistant' ? clip(previous.text, CONTEXT_CHARS) : undefined;
        candidates.push({ turn, signals, context });
      }
    }
    previous = turn;
  }
  return { scanned, candidates };
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `…${flat.slice(flat.length - max)}` : flat;
}
