/**
 * Machine secrets by secretlint's recommended rule set (cloud keys, tokens of GitHub, Slack, npm, OpenAI,
 * Anthropic…, private keys, URLs with credentials), a maintained list of shapes rather than our own guesses.
 * Loaded only when a text has something a rule could match (a long token, a URL, a key block), so a
 * `remember` of a plain sentence never loads it.
 */
import type { SecretFinding } from './finding.js';

/** Every rule of the preset looks for one of these: a token of 16+ characters, a URL's credentials, a PEM block. */
const WORTH_A_LOOK = /[A-Za-z0-9_+/=.-]{16,}|:\/\/|-----BEGIN/u;

const RULE_PREFIX = '@secretlint/secretlint-rule-';
/** Marker words for rules whose name is not already plain. */
const KINDS: Record<string, string> = {
  aws: 'aws key',
  gcp: 'gcp key',
  privatekey: 'private key',
  basicauth: 'password',
  'database-connection-string': 'password',
  github: 'github token',
  slack: 'slack token',
  npm: 'npm token',
  openai: 'api key',
  anthropic: 'api key',
};

type Lint = (text: string) => Promise<SecretFinding[]>;
let loaded: Promise<Lint> | null = null;

async function load(): Promise<Lint> {
  const [{ lintSource }, { creator }] = await Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]);
  const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator }] };
  return async (text) => {
    const result = await lintSource({ source: { filePath: '/fact.txt', content: text, contentType: 'text', ext: '.txt' }, options: { config } });
    return result.messages.map((m) => {
      const rule = m.ruleId.startsWith(RULE_PREFIX) ? m.ruleId.slice(RULE_PREFIX.length) : m.ruleId;
      return { kind: KINDS[rule] ?? `${rule.replace(/-/g, ' ')} secret`, start: m.range[0], end: m.range[1] };
    });
  };
}

export async function secretlintFindings(text: string): Promise<SecretFinding[]> {
  if (!WORTH_A_LOOK.test(text)) return [];
  // The loaded rule set is a cache of code, not state: the same for every caller.
  loaded ??= load();
  return (await loaded)(text);
}
