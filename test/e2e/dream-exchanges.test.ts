/**
 * A reply that only makes sense with the question before it is stated with that question (issue 25,
 * exchanges.ts): on the replier's page, cited to both lines; a reply that stands alone stays as it is, and a
 * bare "Yes!" to a yes/no question is content, not small talk. Through the built CLI, on a real vault.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { runCli } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
let temp = '';
let vault: Vault;
const ids = new Map<string, string>();

/** Every wiki page's text, by path (logs and the vault's own files aside). */
async function pages(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(vault.root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
    const rel = path.relative(vault.root, path.join(entry.parentPath, entry.name));
    if (!/^[0-5]_/u.test(rel)) continue;
    out.set(rel, await readFile(path.join(vault.root, rel), 'utf8'));
  }
  return out;
}

beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-exchanges-'));
  vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
  // One batch: the turns of one exchange, in order.
  const turns = [
    'Maria: My family and I started going to a boot camp together. How often do you guys work out?',
    'John: Thanks, Maria! Three times a week; it keeps us on track.',
    'Maria: Did you go to the Boston concert last weekend?',
    'John: Yes! It was amazing.',
    'Maria: Is there a particular author whose work inspires you?',
    'John: J.K. Rowling is such an inspiring writer, her books are so captivating with their detail and creative storytelling.',
  ];
  const written = await vault.remember(turns.map((text) => ({ text, category: 'fact' as never, tags: [] })), { source: 'test', now: new Date('2026-03-02T10:00:00Z') });
  written.facts.forEach((fact, i) => ids.set(turns[i]!, fact.id));
  const run = await runCli(['--vault', vault.root, 'dream', '--force', '--offline', '--json']);
  expect(run.code, run.stderr).toBe(0);
  expect((JSON.parse(run.stdout) as { status: string }).status).toBe('ok');
}, 180_000);

afterAll(async () => {
  if (temp !== '' && process.env.KEEP !== '1') await rm(temp, { recursive: true, force: true });
});

const id = (prefix: string): string => [...ids].find(([text]) => text.startsWith(prefix))![1];

describe('a reply stated with its question', { timeout: 60_000 }, () => {
  it('a short reply carries the question it answers and cites both lines, on the replier\'s page', async () => {
    const all = await pages();
    const [rel, text] = [...all].find(([, t]) => t.includes('Three times a week'))!;
    expect(rel).toMatch(/John/u);
    const line = text.split('\n').find((l) => l.includes('Three times a week'))!;
    expect(line).toContain('Asked “How often do you guys work out?”, John said: Three times a week; it keeps us on track.');
    expect(line).toContain(`#^${id('John: Thanks, Maria!')}]]`);
    expect(line).toContain(`#^${id('Maria: My family')}]]`);
  });

  it('a bare yes to a yes/no question is content, not small talk', async () => {
    const all = await pages();
    const holding = [...all].filter(([, t]) => t.includes(id('John: Yes!')));
    expect(holding.some(([rel, t]) => /John/u.test(rel) && t.includes('Asked “Did you go to the Boston concert last weekend?”, John said: Yes! It was amazing.'))).toBe(true);
  });

  it('a reply that stands alone is stated as it is, without the question', async () => {
    const all = await pages();
    const text = [...all.values()].find((t) => t.includes('J.K. Rowling is such an inspiring writer'))!;
    const line = text.split('\n').find((l) => l.includes('J.K. Rowling is such an inspiring writer'))!;
    expect(line).not.toContain('Asked');
    expect(line).not.toContain(id('Maria: Is there'));
  });

  it('search finds the reply by the words of the question (the reply alone holds none of them)', async () => {
    const run = await runCli(['--vault', vault.root, 'search', 'how often work out', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const results = (JSON.parse(run.stdout) as { results: Array<{ text: string }> }).results;
    expect(results.slice(0, 3).some((r) => r.text.includes('Three times a week'))).toBe(true);
  });
});
