/**
 * The vault's config (.vaultkeeper/config.yaml): defaults, environment overrides, and errors that name
 * the file, the key and what is allowed. Also: schema/config.schema.json is generated from the validator.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE, configJsonSchema, llmApiKey, loadConfig, parseConfigText } from '../../src/core/config.js';
import { VaultkeeperError } from '../../src/core/errors.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The defaults DESIGN and docs/configuration.md promise (sections may gain keys; these stay). */
const DEFAULTS = {
  timezone: 'system',
  git: {},
  capture: { default_source: 'cli' },
  index: { uri: '.vaultkeeper/index', embedder: 'none' },
  dream: { min_hours: 24, min_facts: 20, max_days: 14, max_retries: 3, timeout_s: 600 },
  llm: { base_url: null, model: null, api_key_env: 'OPENAI_API_KEY' },
};

/** The error parseConfigText throws for `text` (fails the test if it does not throw). */
function configError(text: string, env: NodeJS.ProcessEnv = {}): VaultkeeperError {
  try {
    parseConfigText(text, CONFIG_FILE, env);
  } catch (error) {
    expect(error).toBeInstanceOf(VaultkeeperError);
    return error as VaultkeeperError;
  }
  throw new Error(`expected the config to be refused:\n${text}`);
}

describe('config defaults', () => {
  const defaults = parseConfigText('', CONFIG_FILE);

  it('an empty file, or none, means every default', async () => {
    expect(defaults).toMatchObject(DEFAULTS);
    expect(defaults.git).toEqual({});
    expect(parseConfigText('# only a comment\n', CONFIG_FILE)).toEqual(defaults);
    expect(await loadConfig(await tempDir(), {})).toEqual(defaults);
  });

  it('the template a new vault gets holds exactly the defaults', async () => {
    const text = await readFile(path.join(REPO, 'vault-template', CONFIG_FILE), 'utf8');
    expect(parseConfigText(text, CONFIG_FILE)).toEqual(defaults);
  });

  it('a section left with only comments means its defaults', () => {
    expect(parseConfigText('git:\n  # author_name: me\n  # author_email: me@example.com\ndream:\n', CONFIG_FILE)).toEqual(defaults);
  });

  it('a partial section keeps the defaults of the keys it leaves out', () => {
    const config = parseConfigText('dream:\n  max_days: 3\ngit:\n  author_name: Ana\n', CONFIG_FILE);
    expect(config.dream).toEqual({ ...defaults.dream, max_days: 3 });
    expect(config.git).toEqual({ author_name: 'Ana' });
  });

  it('loads the file from the vault', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, '.vaultkeeper'));
    await writeFile(path.join(root, CONFIG_FILE), 'timezone: Europe/Lisbon\nindex:\n  embedder: none\n');
    const config = await loadConfig(root, {});
    expect(config.timezone).toBe('Europe/Lisbon');
    expect(config.index).toEqual({ ...parseConfigText('', CONFIG_FILE).index, embedder: 'none' });
  });
});

describe('environment overrides', () => {
  const file = 'timezone: Europe/Lisbon\nindex:\n  embedder: hash\nllm:\n  base_url: https://api.openai.com/v1\n  model: gpt-4o-mini\n  api_key_env: OPENAI_API_KEY\n';

  it.each([
    ['VAULTKEEPER_TIMEZONE', 'Asia/Tokyo', ['timezone']],
    ['VAULTKEEPER_LLM_BASE_URL', 'http://127.0.0.1:11434/v1', ['llm', 'base_url']],
    ['VAULTKEEPER_LLM_MODEL', 'qwen2.5:7b', ['llm', 'model']],
    ['VAULTKEEPER_LLM_API_KEY_ENV', 'MY_LLM_KEY', ['llm', 'api_key_env']],
    ['VAULTKEEPER_EMBEDDER', 'none', ['index', 'embedder']],
  ])('%s overrides the file, and only its key', (variable, value, keyPath) => {
    const fromFile = parseConfigText(file, CONFIG_FILE, {});
    const expected = structuredClone(fromFile) as unknown as Record<string, Record<string, unknown>>;
    if (keyPath.length === 1) (expected as Record<string, unknown>)[keyPath[0]!] = value;
    else expected[keyPath[0]!]![keyPath[1]!] = value;
    expect(expected).not.toEqual(fromFile);
    expect(parseConfigText(file, CONFIG_FILE, { [variable]: value })).toEqual(expected);
    // An empty variable is no override.
    expect(parseConfigText(file, CONFIG_FILE, { [variable]: '' })).toEqual(fromFile);
  });

  it('overrides apply over defaults when the file is empty', () => {
    const config = parseConfigText('', CONFIG_FILE, { VAULTKEEPER_LLM_BASE_URL: 'http://127.0.0.1:8080/v1', VAULTKEEPER_LLM_MODEL: 'm' });
    expect(config.llm).toMatchObject({ base_url: 'http://127.0.0.1:8080/v1', model: 'm', api_key_env: 'OPENAI_API_KEY' });
  });

  it('loadConfig reads the overrides from the environment it is given', async () => {
    const config = await loadConfig(await tempDir(), { VAULTKEEPER_TIMEZONE: 'America/Sao_Paulo' });
    expect(config.timezone).toBe('America/Sao_Paulo');
  });

  it('a bad override names the variable it came from', () => {
    const zone = configError('', { VAULTKEEPER_TIMEZONE: 'Mars/Olympus_Mons' });
    expect(zone.message).toMatch(/timezone \(from VAULTKEEPER_TIMEZONE\)/);
    expect(zone.message).toMatch(/IANA time zone/);
    const embedder = configError('', { VAULTKEEPER_EMBEDDER: 'word2vec' });
    expect(embedder.message).toContain('index.embedder (from VAULTKEEPER_EMBEDDER)');
    for (const allowed of ['hash', 'use-lite', 'transformers', 'openai', 'none']) expect(embedder.message).toContain(allowed);
    expect(configError('', { VAULTKEEPER_LLM_BASE_URL: 'not a url' }).message).toContain('llm.base_url (from VAULTKEEPER_LLM_BASE_URL)');
    expect(configError('', { VAULTKEEPER_LLM_API_KEY_ENV: 'sk-abc123' }).message).toMatch(/llm\.api_key_env \(from VAULTKEEPER_LLM_API_KEY_ENV\).*name of an environment variable/);
  });

  it('the API key is read only from the variable the config names', () => {
    const config = parseConfigText('llm:\n  api_key_env: MY_LLM_KEY\n', CONFIG_FILE);
    expect(llmApiKey(config, { MY_LLM_KEY: 'sk-1', OPENAI_API_KEY: 'sk-2' })).toBe('sk-1');
    expect(llmApiKey(config, { OPENAI_API_KEY: 'sk-2' })).toBeUndefined();
    expect(llmApiKey(config, { MY_LLM_KEY: '' })).toBeUndefined();
  });
});

describe('config errors name the file, the key and what is allowed', () => {
  it('bad YAML, with its line', () => {
    const error = configError('timezone: UTC\ndream:\n  max_days: [1, 2\n  min_hours: 3\n');
    expect(error.code).toBe('VK_CONFIG');
    expect(error.message).toMatch(/^\.vaultkeeper\/config\.yaml: not valid YAML at line \d+/);
    expect(error.hint).toContain(CONFIG_FILE);
    const tabs = configError('dream:\n\tmax_days: 3\n');
    expect(tabs.message).toMatch(/not valid YAML at line 2/);
  });

  it('an unknown key, listing the keys allowed there', () => {
    const top = configError('timezone: UTC\nembedder: none\n');
    expect(top.message).toContain(CONFIG_FILE);
    expect(top.message).toMatch(/embedder: unknown key/);
    for (const key of ['timezone', 'git', 'capture', 'index', 'dream', 'llm']) expect(top.message).toContain(key);
    const nested = configError('dream:\n  max_dayz: 3\n');
    expect(nested.message).toMatch(/dream\.max_dayz: unknown key; allowed here: min_hours, min_facts, max_days, max_retries, timeout_s/);
  });

  it('a wrong type, naming the key and the type expected', () => {
    const error = configError('dream:\n  max_days: many\n');
    expect(error.message).toMatch(/^\.vaultkeeper\/config\.yaml: dream\.max_days: .*number/);
    expect(configError('dream:\n  max_days: 0\n').message).toMatch(/dream\.max_days: .*(>=|at least|too small).*1/i);
    expect(configError('dream:\n  max_days: 2.5\n').message).toMatch(/dream\.max_days: .*int/i);
    expect(configError('index:\n  embedder: word2vec\n').message).toMatch(/index\.embedder: .*"hash".*"none"/);
    expect(configError('llm: yes\n').message).toMatch(/llm: .*object/);
    expect(configError('- a\n- b\n').message).toMatch(/must be a YAML mapping/);
  });

  it('a bad time zone, saying what a good one looks like', () => {
    const error = configError('timezone: Europe/Atlantis\n');
    expect(error.message).toBe(`${CONFIG_FILE}: timezone: must be an IANA time zone such as Europe/Lisbon, or "system"`);
  });

  it.each([
    ['llm:\n  api_key: sk-live-SECRET123\n', 'llm.api_key'],
    ['llm:\n  openai_api_key: sk-live-SECRET123\n', 'llm.openai_api_key'],
    ['api_key: sk-live-SECRET123\n', 'api_key'],
    ['llm:\n  token: sk-live-SECRET123\n', 'llm.token'],
  ])('refuses a secret in the vault (%s) with a hint about api_key_env, without repeating it', (text, key) => {
    const error = configError(text);
    expect(error.message).toBe(`${CONFIG_FILE}: ${key}: secrets are never kept in the vault`);
    expect(error.hint).toMatch(/environment variable.*llm\.api_key_env/);
    expect(`${error.message} ${error.hint} ${error.stack}`).not.toContain('SECRET123');
  });
});

describe('schema/config.schema.json', () => {
  it('is the JSON Schema generated from the validator', async () => {
    const file = path.join(REPO, 'schema', 'config.schema.json');
    const stale = 'schema/config.schema.json is missing or out of date: run `npm run schema` and commit the result';
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      expect.fail(stale);
    }
    expect(JSON.parse(text) as unknown, stale).toEqual(configJsonSchema());
  });

  it('describes every top-level key, refuses others, and has no key that would hold a secret', () => {
    const schema = configJsonSchema() as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['capture', 'dream', 'git', 'index', 'llm', 'timezone']));
    expect(schema.additionalProperties).toBe(false);
    const keys: string[] = [];
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const props = (node as { properties?: Record<string, unknown> }).properties;
      if (props !== undefined) keys.push(...Object.keys(props));
      Object.values(node).forEach(walk);
    };
    walk(schema);
    expect(keys).toContain('api_key_env');
    expect(keys.filter((k) => /(api_?key|secret|token|password)$/i.test(k))).toEqual([]);
  });
});
