/**
 * The vault's configuration: `.vaultkeeper/config.yaml`, validated on load, with environment overrides
 * for the settings a person changes per machine. Secrets never live here: the config names the
 * environment variable that holds an API key, never the key itself.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { CONFIG_FILE, ENV_OVERRIDES } from './config-keys.js';
import { VaultkeeperError } from './errors.js';

const isTimeZone = (value: string): boolean => {
  if (value === 'system') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable, e.g. OPENAI_API_KEY');

export const ConfigSchema = z
  .strictObject({
    timezone: z
      .string()
      .refine(isTimeZone, 'must be an IANA time zone such as Europe/Lisbon, or "system"')
      .default('system')
      .describe('Time zone that decides which daily log a fact lands in. "system" uses the machine\'s zone.'),
    owner: z
      .string()
      .trim()
      .min(1)
      .max(80)
      .nullable()
      .default(null)
      .describe('The name of the person whose memory this is: the dream writes "I" in a fact with no speaker as this name ("I adopted a pup" → "Sam adopted a pup") and files it on their page. null: first person is kept as said.'),
    git: z
      .strictObject({
        author_name: z.string().min(1).optional().describe('Author of vaultkeeper\'s commits. Default: git\'s user.name, else "vaultkeeper".'),
        author_email: z.string().min(1).optional().describe('Email of vaultkeeper\'s commits. Default: git\'s user.email, else "vaultkeeper@localhost".'),
      })
      .prefault({})
      .describe('Git audit settings: every change vaultkeeper makes is a commit.'),
    capture: z
      .strictObject({
        default_source: z.string().min(1).default('cli').describe('Source written in a batch header when none is given.'),
        secrets: z
          .enum(['redact', 'refuse'])
          .default('redact')
          .describe('A secret found in a fact (a key, a token, a password, a PIN, a card number, an IBAN): "redact" writes the fact with the secret replaced by a marker such as [redacted: password]; "refuse" stores nothing and fails.'),
      })
      .prefault({})
      .describe('How facts are captured.'),
    index: z
      .strictObject({
        uri: z.string().min(1).default('.vaultkeeper/index').describe('Where the LanceDB index lives: a path relative to the vault, or any URI LanceDB accepts.'),
        embedder: z
          .enum(['hash', 'use-lite', 'transformers', 'openai', 'none'])
          .default('none')
          .describe('Embedder for vector search; "none" is full-text only (the default: best on LoCoMo, see docs/benchmarks.md).'),
        fallback: z
          .enum(['hash', 'none'])
          .default('none')
          .describe('Used, with a warning, when the configured embedder cannot be loaded (e.g. a transformers model missing offline): "hash", or "none" for full-text only.'),
        hash: z
          .strictObject({
            dimensions: z.number().int().min(16).max(4096).default(256).describe('Length of the hashed feature vectors.'),
          })
          .prefault({})
          .describe('The built-in feature-hashing embedder (no model).'),
        transformers: z
          .strictObject({
            model: z.string().min(1).default('Xenova/all-MiniLM-L6-v2').describe('Model hub name of an ONNX feature-extraction model; part of the index\'s identity even when loaded from `path`.'),
            path: z
              .string()
              .min(1)
              .nullable()
              .default(null)
              .describe('Local folder holding the model (config.json, tokenizer.json, onnx/model.onnx), relative to the vault or absolute. null: look in the local caches.'),
            cache_dir: z
              .string()
              .min(1)
              .nullable()
              .default(null)
              .describe('transformers.js cache folder to look in (holding <model>/...), relative to the vault or absolute. null: the library\'s default cache and the Hugging Face hub cache. Nothing is ever downloaded.'),
          })
          .prefault({})
          .describe('An ONNX model run locally through transformers.js.'),
        openai: z
          .strictObject({
            base_url: z.url().nullable().default(null).describe('OpenAI-compatible endpoint serving /embeddings, e.g. http://127.0.0.1:11434/v1 for Ollama. null: https://api.openai.com/v1.'),
            model: z.string().min(1).default('text-embedding-3-small').describe('Embedding model name.'),
            api_key_env: envName.default('OPENAI_API_KEY').describe('Name of the environment variable that holds the API key (never the key itself); may be unset for keyless local servers.'),
            dimensions: z.number().int().min(1).nullable().default(null).describe('Requested vector length (models that support shortening). null: the model\'s own, measured with one request.'),
            batch_size: z.number().int().min(1).max(2048).default(64).describe('Texts sent in one request.'),
            timeout_s: z.number().min(1).default(60).describe('Seconds one request may take before it fails.'),
          })
          .prefault({})
          .describe('Any OpenAI-compatible /embeddings endpoint.'),
      })
      .prefault({})
      .describe('The search index (a disposable projection of the vault).'),
    dream: z
      .strictObject({
        min_hours: z.number().min(0).default(24).describe('Hours from the last dream run that went through to the next, when there is no backlog; a failed or waiting run is tried again after a backoff instead (5 min, doubling, at most 4 h).'),
        min_facts: z.number().int().min(0).default(20).describe('Pending facts needed before a dream runs.'),
        max_days: z.number().int().min(1).default(14).describe('Most log days consolidated in one run; more pending days is a backlog.'),
        max_retries: z.number().int().min(1).default(3).describe('Failed runs of a one-day batch before that day is skipped (dream --retry-skipped brings it back); a failed batch of several days is halved first, and an LLM that cannot be used (down, over a cap or its run budget, still going at timeout_s) never counts.'),
        timeout_s: z.number().int().min(1).default(600).describe('Seconds a consolidator may take before it is stopped: an LLM still going falls back like an outage (llm.fallback), the offline one then gets as long again; an offline run past it fails and is rolled back.'),
        max_changed_pages: z.number().int().min(1).default(100).describe('Most pages one run may create, change or archive; more fails the safety check.'),
        max_archived_pages: z.number().int().min(0).default(10).describe('Most pages one run may archive.'),
        archive_after_days: z
          .number()
          .int()
          .min(0)
          .default(180)
          .describe(
            'A page the dream made moves to 5_Archives/ (never deleted; search --archived finds it) once this many days pass with no new fact cited on it, no search recalling it and no edit by a person. 0: never archive.',
          ),
        memory_lines: z
          .number()
          .int()
          .min(12)
          .default(80)
          .describe(
            'Most facts MEMORY.md holds (its list items of durable facts; headings, blank lines, the intro, the recalled pages and the closing note are not counted). The best fact of each kind is always kept and health and safety facts come first; when the durable facts do not fit, its last line says how many were left out and on which pages. At least 12: room for the best fact of each of the 8 kinds and a few more.',
          ),
        min_placed_share: z
          .number()
          .min(0)
          .max(1)
          .default(0.9)
          .describe(
            "Share of a batch's facts the consolidator itself must cite on pages outside 0_Inbox/ (rounded up); fewer fails the run's proof_of_work check and counts as a failed try. The runner's filing of uncited facts in 0_Inbox/unsorted.md is a safety net, not the run's work. 0: no minimum.",
          ),
        where: z
          .string()
          .default('')
          .describe("The one machine that dreams when the vault is synced between machines (`vaultkeeper sync`): its name (VAULTKEEPER_MACHINE, else the host name). Empty: any machine. The first sync sets it to the machine that syncs; the others receive pages."),
        adopted_notes: z
          .enum(['read-only', 'append'])
          .default('read-only')
          .describe(
            'On a vault made with `init --adopt`: "read-only" keeps the notes a person wrote as they are (the dream writes its own pages and links to them); "append" lets the dream add its statements to them, as on any vault.',
          ),
      })
      .prefault({})
      .describe('The gated consolidation of logs into wiki pages.'),
    extract: z
      .strictObject({
        sessions: z
          .array(z.string().min(1))
          .default([])
          .describe('Globs of agent transcripts the daemon\'s session watcher follows besides the agents named with `vaultkeeper capture add` (~ is the home folder; relative globs are relative to the vault). Default: none; nothing is read that a person did not name.'),
        idle_minutes: z.number().min(0).default(10).describe('Minutes a transcript must go unchanged before its session counts as ended and is extracted.'),
        min_confidence: z
          .number()
          .min(0)
          .max(1)
          .default(0.6)
          .describe('LLM-extracted facts whose confidence (0 to 1) is below this are dropped.'),
        max_turns_per_call: z.number().int().min(1).max(200).default(20).describe('Most transcript turns sent to the LLM in one extraction call.'),
      })
      .prefault({})
      .describe('Turning agent transcripts into facts (`vaultkeeper ingest` and the daemon\'s session watcher).'),
    daemon: z
      .strictObject({
        llm_idle_minutes: z
          .number()
          .int()
          .min(0)
          .default(10)
          .describe('Hold LLM jobs (an LLM dream, LLM extraction) while the vault was written in the last N minutes, so they never compete with a person typing. 0: never hold.'),
        sync_minutes: z
          .number()
          .int()
          .min(0)
          .default(15)
          .describe('When the vault has a git remote (`vaultkeeper sync --remote`): sync every N minutes, after each dream and after each write the daemon indexes. 0: never sync by itself.'),
        discover: z
          .boolean()
          .default(false)
          .describe('Run the weekly discover job (needs an LLM): add [[wikilinks]] between related pages under their ## Related section, and list cross-page contradictions and open questions in 0_Inbox/insights.md.'),
      })
      .prefault({})
      .describe('The background daemon.'),
    llm: z
      .strictObject({
        base_url: z.url().nullable().default(null).describe('OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1. null: no LLM, offline consolidator.'),
        model: z.string().min(1).nullable().default(null).describe('Chat model with tool calling.'),
        api_key_env: envName.default('OPENAI_API_KEY').describe('Name of the environment variable that holds the API key (never the key itself).'),
        max_steps: z
          .number()
          .int()
          .min(1)
          .default(60)
          .describe('Most model turns in one dream run; a model that has not called finish by then is rolled back and the run falls back as llm.fallback says.'),
        max_tokens_per_run: z
          .number()
          .int()
          .min(1)
          .default(200000)
          .describe(
            'Most tokens (prompt plus completion, as the server reports them) one run of a job may use (a dream run, an extraction); past it further calls of the run are refused, and a dream run is rolled back and falls back as llm.fallback says (never a failed run).',
          ),
        max_tokens_per_day: z
          .number()
          .int()
          .min(1)
          .nullable()
          .default(null)
          .describe('Most tokens all LLM calls together may use in one day of the vault\'s time zone; over it calls are refused until local midnight. null: no daily cap.'),
        max_cost_per_day: z
          .number()
          .positive()
          .nullable()
          .default(null)
          .describe('Most cost (in the currency of llm.prices) all LLM calls together may run up in one day of the vault\'s time zone; needs llm.prices. null: no cost cap.'),
        prices: z
          .strictObject({
            input_per_million: z.number().min(0).describe('Price of one million prompt tokens.'),
            output_per_million: z.number().min(0).describe('Price of one million completion tokens.'),
          })
          .nullable()
          .default(null)
          .describe('Prices of the model, to count the cost of each call. null: cost is not counted.'),
        concurrency: z.number().int().min(1).max(16).default(1).describe('LLM calls in flight at once; the rest wait their turn in one queue.'),
        max_attempts: z
          .number()
          .int()
          .min(1)
          .max(10)
          .default(4)
          .describe('Tries of one call (the first and its retries) after a timeout, a connection error, HTTP 408, 409, 429 or 5xx, or a malformed reply, with a backoff shared by all calls that honours Retry-After.'),
        fallback: z
          .enum(['offline', 'wait'])
          .default('offline')
          .describe('What LLM jobs do when a cap is reached or the endpoint cannot be reached: "offline" runs the offline consolidator (or rule-based extraction) instead, "wait" holds them until the cap resets or the endpoint answers.'),
        timeout_s: z.number().min(1).default(120).describe('Seconds one model call may take before it is retried (up to llm.max_attempts tries in all) and then fails.'),
        temperature: z
          .number()
          .min(0)
          .max(2)
          .nullable()
          .default(null)
          .describe("Sampling temperature sent with each call. null: the server's default (some models accept no other)."),
      })
      .refine((llm) => llm.max_cost_per_day === null || llm.prices !== null, {
        path: ['max_cost_per_day'],
        message: 'a cost cap needs prices: set llm.prices.input_per_million and llm.prices.output_per_million, or remove llm.max_cost_per_day',
      })
      .prefault({})
      .describe('The LLM used by the dream agent, extraction, digests and promotion; every call goes through one executor (a queue, shared backoff, caps).'),
  })
  .describe('vaultkeeper vault configuration (.vaultkeeper/config.yaml)');

export type Config = z.infer<typeof ConfigSchema>;

export { CONFIG_FILE, ENV_OVERRIDES };

const SECRET_KEY = /(^|_)(api_?key|key|secret|token|password)$/i;

export function configError(file: string, message: string, hint?: string): VaultkeeperError {
  return new VaultkeeperError('VK_CONFIG', `${file}: ${message}`, {
    hint: hint ?? `fix ${file} (see docs/configuration.md), then run the command again`,
  });
}

/** Validates a raw config object (as parsed from YAML, overrides applied). */
export function validateConfig(raw: unknown, file: string, fromEnv: ReadonlyMap<string, string> = new Map()): Config {
  const result = ConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const name = [...issue.path, issue.keys[0]].join('.');
    if (issue.keys.some((k) => SECRET_KEY.test(k))) {
      throw configError(file, `${name}: secrets are never kept in the vault`, 'put the key in an environment variable and name that variable in llm.api_key_env');
    }
    throw configError(file, `${name}: unknown key; allowed here: ${allowedKeys(issue.path).join(', ')}`);
  }
  const origin = fromEnv.get(key);
  const where = origin === undefined ? key || '(top level)' : `${key} (from ${origin})`;
  throw configError(file, `${where}: ${issue.message}`);
}

function allowedKeys(at: readonly PropertyKey[]): string[] {
  let shape: z.ZodType = ConfigSchema;
  for (const key of at) {
    const inner = unwrap(shape);
    if (!(inner instanceof z.ZodObject)) return [];
    const next = inner.shape[String(key)] as z.ZodType | undefined;
    if (next === undefined) return [];
    shape = next;
  }
  const inner = unwrap(shape);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodPrefault || current instanceof z.ZodOptional) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** Loads and validates the vault's config, then applies environment overrides. */
export async function loadConfig(vaultRoot: string, env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const file = path.join(vaultRoot, CONFIG_FILE);
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return parseConfigText(text, CONFIG_FILE, env);
}

export function parseConfigText(text: string, file: string, env: NodeJS.ProcessEnv = {}): Config {
  // Without prettyErrors, yaml sets no linePos; a LineCounter turns the error's offset into a line.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = first.pos[0] >= 0 ? lineCounter.linePos(first.pos[0]).line : undefined;
    throw configError(file, `not valid YAML${line === undefined ? '' : ` at line ${line}`}: ${first.message.split('\n')[0]}`);
  }
  let raw: unknown;
  try {
    raw = doc.toJS() ?? {};
  } catch (error) {
    // yaml refuses an alias bomb (aliases expanding past its limit) when it builds the value.
    throw configError(file, `not usable YAML: ${(error as Error).message.split('\n')[0]}; remove the *alias references`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw configError(file, 'must be a YAML mapping of keys to values');
  }
  const fromEnv = new Map<string, string>();
  const withEnv = structuredClone(raw) as Record<string, unknown>;
  // A section whose keys are all commented out reads as null: it means "all defaults".
  for (const [key, value] of Object.entries(withEnv)) if (value === null) delete withEnv[key];
  for (const [variable, keyPath] of Object.entries(ENV_OVERRIDES)) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    setPath(withEnv, keyPath, value);
    fromEnv.set(keyPath.join('.'), variable);
  }
  return validateConfig(withEnv, file, fromEnv);
}

function setPath(target: Record<string, unknown>, keyPath: readonly string[], value: string): void {
  let node = target;
  for (const key of keyPath.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keyPath.at(-1)!] = value;
}

/** The API key for the configured LLM, read only from the environment. */
export function llmApiKey(config: Config, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[config.llm.api_key_env];
  return value === undefined || value === '' ? undefined : value;
}

/** The JSON Schema of the config file, generated from the validator (schema/config.schema.json). */
export function configJsonSchema(): unknown {
  return z.toJSONSchema(ConfigSchema, { io: 'input', target: 'draft-2020-12' });
}
