/**
 * Personal secrets said in plain words, which no key-shape rule sees: a password, a PIN, a door or alarm
 * code, a card number, an IBAN. A cue word must name the secret and a value must follow it ("my PIN is
 * 4471", "door code: 4471#", "wifi password = hunter2!"), so "I changed my password yesterday" or "the alarm
 * goes off at 7" stay as they are; card numbers must pass the Luhn check and IBANs their mod-97 check, so an
 * order number or an id of the same length is kept.
 */
import type { SecretFinding } from './finding.js';
import { ibanValid } from './iban.js';
import { luhnValid } from './luhn.js';

interface Cue {
  kind: string;
  /** The words that name the secret (a regex source, matched as whole words, case-insensitive). */
  words: string;
  /** What a value of this secret looks like. */
  value: 'password' | 'code';
}

const CUES: readonly Cue[] = [
  { kind: 'password', words: String.raw`(?:wi-?fi\s+|admin\s+|root\s+|login\s+|account\s+)?(?:password|passwort|passwd|pass\s?phrase|pwd)`, value: 'password' },
  { kind: 'passcode', words: String.raw`pass\s?code`, value: 'password' },
  { kind: 'pin', words: String.raw`pin(?:\s+(?:code|number))?`, value: 'code' },
  {
    kind: 'access code',
    words: String.raw`(?:door|gate|alarm|garage|safe|lock|entry|access|building|keypad|key\s?box|lockbox|security|buzzer|entrance|front\s+door|alarm\s+system|house)\s+(?:code|combination|combo)|combination|cvv|cvc|csc`,
    value: 'code',
  },
  { kind: 'social security number', words: String.raw`ssn|social\s+security\s+(?:number|no\.?)`, value: 'code' },
];

/** Words between the cue and the value: "is", "is now", ":", "=", "was changed to", "of the office is"… */
const CONNECTOR = String.raw`(?:\s+(?:for|of|to|at|on)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+)?[\p{L}'’-]+(?:\s+[\p{L}'’-]+)?)?(?:\s*[:=]\s*|\s+(?:is|was|are|=)(?:\s+(?:now|still|set\s+to|changed\s+to))?(?:\s*[:-])?\s+|\s+(?:set|changed|reset)\s+to\s+|\s+)`;

/** A code: digits (with # or * from a keypad), or letters and digits with at least one digit. */
const CODE_VALUE = String.raw`(?:[#*]?\d[\d\s-]{1,14}\d[#*]?|[#*]?\d{3,}[#*]?|(?=[A-Za-z]*\d)[A-Za-z0-9]{3,12}#?)`;
/** A password: one token without spaces. */
const PASSWORD_VALUE = String.raw`["'“‘]?[^\s"'“”‘’]{3,128}["'”’]?`;

/** Words that follow "password is" without being one. */
const NOT_A_PASSWORD = new Set(
  (
    'the a an my our your his her their its this that same different new old wrong right correct incorrect strong weak long short secure ' +
    'stored saved written kept hidden required needed missing expired changed reset set in on at for with from to of by not no still ' +
    'manager managers protected hashed encrypted also too there here somewhere written case-sensitive easy hard simple complicated ' +
    'what which where how why when who it one two three four five six seven eight nine ten something nothing'
  ).split(' '),
);

const CUE_PATTERNS = CUES.map((cue) => ({
  cue,
  pattern: new RegExp(String.raw`\b(?:${cue.words})\b(${CONNECTOR})(${cue.value === 'code' ? CODE_VALUE : PASSWORD_VALUE})`, 'giu'),
}));

/** A value after a cue that is really a secret (not "password is strong", not a bare year after "pin"). */
function plausible(cue: Cue, value: string, connector: string): boolean {
  const bare = value.replace(/^["'“‘]|["'”’.,;!?)]+$/gu, '');
  if (bare.length < 3) return false;
  if (cue.value === 'code') {
    // Without a connector only a run of digits counts ("door code 4471"); "PIN 2 of 3" does not.
    const digits = bare.replace(/[^\d]/g, '');
    if (connector.trim() === '' && !/^[#*]?\d{3,12}[#*]?$/.test(bare)) return false;
    return digits.length >= 3 || /\d/.test(bare);
  }
  if (NOT_A_PASSWORD.has(bare.toLowerCase())) return false;
  // "password hunter2" without a connector is too loose; a connector or a value that looks made up.
  const madeUp = /\d/.test(bare) || /[^\p{L}\p{N}]/u.test(bare) || (/\p{Lu}/u.test(bare.slice(1)) && /\p{Ll}/u.test(bare));
  if (connector.trim() === '') return madeUp && bare.length >= 6;
  return madeUp || bare.length >= 6;
}

/** Card numbers: 13–19 digits, grouped by spaces or dashes or not, of a card network's prefix, passing Luhn. */
const CARD = /(?<![\d.-])(?:\d[ -]?){12,18}\d(?![\d-])/gu;
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|6(?:011|5|4[4-9]|22)|35|30[0-5]|36|38|39)/u;
/** IBANs: a country, two check digits, then the account, grouped in fours or not. */
const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b/gu;

export function personalSecrets(text: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  for (const { cue, pattern } of CUE_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const connector = m[1] ?? '';
      let value = m[2] ?? '';
      // A sentence's closing punctuation is not part of the secret.
      value = value.replace(/[.,;!?)]+$/u, '');
      if (!plausible(cue, value, connector)) continue;
      const start = (m.index ?? 0) + m[0].length - (m[2] ?? '').length;
      found.push({ kind: cue.kind, start, end: start + value.length });
    }
  }
  for (const m of text.matchAll(CARD)) {
    const digits = m[0].replace(/\D/g, '');
    if (CARD_PREFIX.test(digits) && luhnValid(digits)) found.push({ kind: 'card number', start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
  }
  for (const m of text.matchAll(IBAN)) {
    if (ibanValid(m[0])) found.push({ kind: 'iban', start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
  }
  return found;
}
