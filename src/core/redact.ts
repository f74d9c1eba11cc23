/**
 * One redaction for every place text is persisted or printed (DESIGN §9: no secret is ever written into
 * the vault, its state files, its logs or its git history, nor printed): commit messages, the dream
 * journal, run logs, the daemon's log, status.json, jobs.json and errors on the terminal.
 *
 * What goes: the values of the environment variables that hold keys (the configured `api_key_env`, the
 * usual names, any `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`), `Authorization`/`Bearer` values,
 * the userinfo of URLs, and the common key shapes (sk-…, ghp_…, AKIA…, xox…-, AIza…).
 */
export const REDACTED = '[redacted]';

/** Names of variables whose value is a secret, besides the configured one. */
const SECRET_ENV_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;
/** Values shorter than this are not redacted by value (a "KEY=1" flag would blank every digit 1). */
const MIN_SECRET_CHARS = 8;

const PATTERNS: readonly [RegExp, string][] = [
  // scheme://user:password@host → scheme://[redacted]@host
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]+@/giu, `$1${REDACTED}@`],
  [/\b(authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;]+/giu, `$1${REDACTED}`],
  [/\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/giu, `$1${REDACTED}`],
  [/\b((?:api[_-]?key|x-api-key|access[_-]?token|secret|password)["']?\s*[:=]\s*["']?)[^\s"',;&]{8,}/giu, `$1${REDACTED}`],
  ...keyShapes().map(({ pattern }): [RegExp, string] => [pattern, REDACTED]),
];

/** The common key shapes, with what each is (src/secrets/ scans facts with them too, before they are written). */
export function keyShapes(): { kind: string; pattern: RegExp }[] {
  return [
    { kind: 'api key', pattern: /\bsk-[A-Za-z0-9_-]{16,}/gu },
    { kind: 'github token', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/gu },
    { kind: 'github token', pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/gu },
    { kind: 'slack token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/gu },
    { kind: 'aws key', pattern: /\bAKIA[0-9A-Z]{16}\b/gu },
    { kind: 'google api key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/gu },
  ];
}

/** Names of the variables holding keys here: the configured one (`VAULTKEEPER_LLM_API_KEY_ENV`) and the secret-looking ones. */
function secretValues(env: NodeJS.ProcessEnv, extraNames: readonly string[], known: readonly string[] = []): string[] {
  const configured = env.VAULTKEEPER_LLM_API_KEY_ENV;
  const names = new Set(extraNames);
  if (configured !== undefined && configured !== '') names.add(configured);
  for (const name of Object.keys(env)) if (SECRET_ENV_NAME.test(name)) names.add(name);
  const values = [...names].map((n) => env[n]).filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_CHARS);
  values.push(...known.filter((v) => v !== ''));
  // A password given in a URL (VAULTKEEPER_LLM_BASE_URL=http://user:pw@host) is a secret too, also as basic auth.
  for (const value of Object.values(env)) {
    if (value === undefined || !value.includes('@') || !value.includes('://')) continue;
    const password = urlPassword(value);
    if (password !== null && password.password.length >= MIN_SECRET_CHARS) values.push(password.password, password.basic);
  }
  // Longest first, so a key that contains another is replaced whole.
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

export interface RedactOptions {
  env?: NodeJS.ProcessEnv;
  /** The config's `api_key_env` names, where the caller has the config. */
  keyEnvNames?: readonly string[];
  /** Secret values the caller holds itself (the key a run was given, a base URL's password), whatever their length. */
  values?: readonly string[];
}

/** A redaction function with the secrets looked up once (for redacting many strings). */
export function redactor(options: RedactOptions = {}): (text: string) => string {
  const values = secretValues(options.env ?? process.env, options.keyEnvNames ?? [], options.values).flatMap((value) => {
    // Also as it appears inside JSON or a URL.
    const spellings = new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]);
    return [...spellings];
  });
  return (text) => {
    let out = text;
    for (const value of values) if (out.includes(value)) out = out.split(value).join(REDACTED);
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
    return out;
  };
}

/** `text` with every secret replaced by `[redacted]`; the environment's secret-looking variables are always covered. */
export function redact(text: string, options: RedactOptions = {}): string {
  return redactor(options)(text);
}

/** A JSON-able value with every string in it, object keys included, redacted (status.json, jobs.json, log entries). */
export function redactDeep<T>(value: T, options: RedactOptions = {}): T {
  const clean = redactor(options);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return clean(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [clean(k), walk(x)]));
    return v;
  };
  // The JSON round trip first, so what is written (toJSON of dates and the like) is what gets redacted.
  const plain = JSON.stringify(value);
  return (plain === undefined ? value : walk(JSON.parse(plain))) as T;
}

/** True when `text` holds the value of a key (a page write with one is refused). */
export function holdsKey(text: string, options: RedactOptions = {}): boolean {
  return secretValues(options.env ?? process.env, options.keyEnvNames ?? [], options.values).some((value) => text.includes(value));
}

function urlPassword(value: string): { password: string; basic: string } | null {
  try {
    const url = new URL(value);
    if (url.password === '') return null;
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    return { password, basic: Buffer.from(`${user}:${password}`).toString('base64') };
  } catch {
    return null;
  }
}
