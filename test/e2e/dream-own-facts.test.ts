/**
 * A day is never lost to its own facts (issue 30, deliverable 8): through the built CLI on real vaults, the
 * offline dream places a fact that links to a page that does not exist (kept as written, as Obsidian
 * does), a 20 KB fact (cited by its opening, not copied whole) and a fact of one word repeated thousands of
 * times; and dream.timeout_s stops the offline consolidator on a large batch, leaving the vault as it was.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { MAX_PAGE_BYTES } from '../../src/dream/bound.js';

let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-own-facts-'));
});
afterAll(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
});

interface DreamJson {
  status: string;
  check: string | null;
  reason: string;
}

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\n';

/** A vault holding `texts` on one day, dreamed offline once; returns the run and the vault's root. */
async function dreamOf(name: string, texts: readonly string[], config = CONFIG): Promise<{ json: DreamJson; root: string }> {
  const vault = await makeVault(path.join(temp, name), { config });
  for (const text of texts) await vault.remember([{ text, category: 'fact', tags: [] }], { source: 'test', now: new Date('2026-06-01T10:00:00Z') });
  await vault.close();
  const result = await runCli(['--vault', vault.root, 'dream', '--force', '--offline', '--json']);
  expect(result.stdout, result.stderr).not.toBe('');
  return { json: JSON.parse(result.stdout) as DreamJson, root: vault.root };
}

/** Every wiki page's text (pages live in the numbered zone folders). */
async function pages(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const rel of (await readdir(root, { recursive: true })).sort()) {
    if (rel.endsWith('.md') && /^\d_/.test(rel)) out.set(rel, await readFile(path.join(root, rel), 'utf8'));
  }
  return out;
}

const FRIENDS = ['Alice Berg likes green tea', 'Alice Berg plays chess on Sundays'];

describe('a day is never lost to its own facts', { timeout: 300_000 }, () => {
  it('keeps a link to a page that does not exist as written, and the run ends ok', async () => {
    const { json, root } = await dreamOf('link', ['Alice Berg met Bob at [[Nowhere Cafe]] for lunch', ...FRIENDS]);
    expect(json.status, json.reason).toBe('ok');
    const all = [...(await pages(root)).values()].join('\n');
    expect(all).toContain('[[Nowhere Cafe]]');
    // The dream made no page for it: the link waits for a person, as in Obsidian.
    expect([...(await pages(root)).keys()].some((rel) => rel.includes('Nowhere Cafe'))).toBe(false);
  });

  it('cites a 20 KB fact by its opening: the run ends ok, no page passes the bound, the log keeps the whole text', async () => {
    const long = `Alice Berg wrote the migration plan: ${Array.from({ length: 1400 }, (_, i) => `step ${i} moves table t${i % 37} to the new cluster.`).join(' ')}`;
    expect(long.length).toBeGreaterThan(20_000);
    const { json, root } = await dreamOf('long', [long, ...FRIENDS]);
    expect(json.status, json.reason).toBe('ok');
    const written = await pages(root);
    for (const [rel, text] of written) expect(Buffer.byteLength(text), rel).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    const line = [...written.values()].flatMap((t) => t.split('\n')).find((l) => l.includes('Alice Berg wrote the migration plan'));
    expect(line).toBeDefined();
    expect(line!.length).toBeLessThan(1_000);
    expect(line).toMatch(/ … \[\[2026-06-01#\^f-[a-z0-9]+\]\]$/);
    expect(await readFile(path.join(root, 'logs/2026-06-01.md'), 'utf8')).toContain('step 1399 moves table');
  });

  it('places a 20 KB fact of one word repeated: no "Maximum call stack size exceeded", the run ends ok', async () => {
    const { json, root } = await dreamOf('repeat', [`Alice Berg said ${'buffalo '.repeat(2_600).trim()}`, ...FRIENDS]);
    expect(json.status, json.reason).toBe('ok');
    expect(json.reason).not.toMatch(/call stack/);
    for (const [rel, text] of await pages(root)) expect(Buffer.byteLength(text), rel).toBeLessThanOrEqual(MAX_PAGE_BYTES);
  });

  it('stops the offline consolidator at dream.timeout_s on a large batch and leaves the vault as it was', async () => {
    const vault = await makeVault(path.join(temp, 'timeout'), { config: `${CONFIG}dream:\n  timeout_s: 1\n` });
    const people = ['Alice Berg', 'Bruno Costa', 'Chen Wei', 'Dana Olsen', 'Emeka Obi', 'Farah Khan'];
    for (let day = 1; day <= 6; day++) {
      const inputs = Array.from({ length: 1_000 }, (_, i) => ({ text: `${people[i % people.length]!} logged item ${day}-${i} of the inventory at the Porto warehouse`, category: 'fact', tags: [] }));
      await vault.remember(inputs, { source: 'test', now: new Date(`2026-06-0${day}T10:00:00Z`) });
    }
    await vault.close();
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: vault.root, encoding: 'utf8' });
    const result = await runCli(['--vault', vault.root, 'dream', '--force', '--offline', '--json']);
    const json = JSON.parse(result.stdout) as DreamJson;
    expect(json.status, json.reason).toBe('failed');
    expect(json.check).toBe('timeout');
    // Stopped while it worked, in its slices: it never reached the writing of its pages (a consolidator that
    // blocks the event loop runs to its end first, the timer firing only at its first file write).
    expect(result.stderr).toMatch(/consolidating with the offline consolidator/);
    expect(result.stderr).not.toMatch(/^ {2}(created|updated) /m);
    expect(await pages(vault.root)).toEqual(new Map());
    const since = execFileSync('git', ['log', '--format=%s', `${head.trim()}..HEAD`], { cwd: vault.root, encoding: 'utf8' });
    expect(since, 'no commit of the dream').not.toMatch(/^dream:/m);
    // The lock was let go: the next command runs.
    expect((await runCli(['--vault', vault.root, 'status', '--json'])).code).toBe(0);
  });
});
