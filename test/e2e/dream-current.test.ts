/**
 * Plain-English changes of state reconciled on pages by the offline dream (issue 25): "I moved to Lisbon"
 * weeks after "I live in Berlin" puts `home city:: Lisbon` under the page's Current and Berlin under History;
 * MEMORY.md holds only the newest value and search ranks it first; an unsure reading waits under Conflicts.
 * Also a hub's lead, and a lead a person edited that later dreams leave as it is. Real vaults in temp dirs,
 * real git, the built CLI for search.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vault } from '../../src/vault/vault.js';
import { runJson } from '../helpers/cli.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { git } from '../helpers/vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-current-'));
});
afterAll(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
});

type Input = { text: string; date: string; category?: string };

async function remember(vault: Vault, facts: readonly Input[]): Promise<void> {
  for (const f of facts) {
    await vault.remember([{ text: f.text, category: (f.category ?? 'fact') as never, tags: [] }], { source: 'test', now: new Date(`${f.date}T10:00:00Z`) });
  }
}

const read = (vault: Vault, rel: string): Promise<string> => readFile(path.join(vault.root, rel), 'utf8');

/** The page holding a line that matches, by the CLI's search. */
async function pageWith(vault: Vault, query: string, pattern: RegExp): Promise<string> {
  const found = await runJson<{ results: Array<{ kind: string; path: string }> }>(['search', query], { cwd: vault.root });
  for (const r of found.results.filter((x) => x.kind === 'page')) if (pattern.test(await read(vault, r.path))) return r.path;
  throw new Error(`no page matching ${pattern} among the results of '${query}'`);
}

describe('a plain-English update becomes the current value', { timeout: 240_000 }, () => {
  let vault: Vault;
  let page = '';
  beforeAll(async () => {
    vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    await remember(vault, [
      { text: 'I live in Berlin.', date: '2026-03-02' },
      { text: 'I moved to Lisbon last weekend; the flat in Alfama is finally unpacked.', date: '2026-04-06' },
    ]);
    const run = await vault.dream({ force: true, offline: true, now: new Date('2026-04-08T06:00:00Z') });
    expect(run.status, run.reason).toBe('ok');
    page = await pageWith(vault, 'home city', /^## Current$/m);
  }, 180_000);

  it('puts the newest value under Current, cited, and the old one under History', async () => {
    const text = await read(vault, page);
    const current = text.slice(text.indexOf('## Current'), text.indexOf('\n## ', text.indexOf('## Current') + 1));
    expect(current).toMatch(/^- home city:: Lisbon \[\[2026-04-06#\^f-[0-9a-z]+\]\]$/m);
    expect(current).not.toContain('Berlin');
    expect(text).toMatch(/^## History$/m);
    expect(text).toMatch(/^- home city: Berlin \[\[2026-03-02#\^f-[0-9a-z]+\]\] \(until 2026-04-06\)$/m);
    // The statements stay, each with its citation.
    expect(text).toMatch(/the flat in Alfama is finally unpacked/);
  });

  it('holds only the newest value in MEMORY.md', async () => {
    const memory = await read(vault, 'MEMORY.md');
    expect(memory).toMatch(/^- home city:: Lisbon — \[\[/m);
    expect(memory).not.toContain('Berlin');
  });

  it('ranks the newest value first in search', async () => {
    const found = await runJson<{ results: Array<{ text: string }> }>(['search', 'where do I live'], { cwd: vault.root });
    const first = found.results.find((r) => /Berlin|Lisbon/.test(r.text));
    expect(first?.text).toContain('Lisbon');
  });

  it('writes the same bytes from the same input', async () => {
    const twin = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    await remember(twin, [
      { text: 'I live in Berlin.', date: '2026-03-02' },
      { text: 'I moved to Lisbon last weekend; the flat in Alfama is finally unpacked.', date: '2026-04-06' },
    ]);
    const run = await twin.dream({ force: true, offline: true, now: new Date('2026-04-08T06:00:00Z') });
    expect(run.status, run.reason).toBe('ok');
    // Fact ids differ between vaults (they are random): compare with them blanked.
    const blank = (s: string): string => s.replace(/\^f-[0-9a-z]+/g, '^f-x');
    expect(blank(await read(twin, page))).toBe(blank(await read(vault, page)));
  });
});

describe('an unsure reading and a same-day contradiction go to Conflicts', { timeout: 240_000 }, () => {
  let vault: Vault;
  beforeAll(async () => {
    vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    await remember(vault, [
      { text: 'Ana works at Initrode.', date: '2026-03-02' },
      { text: 'I think Ana joined Oscorp.', date: '2026-03-20' },
      { text: 'Bruno lives in Oslo.', date: '2026-03-05' },
      { text: 'Bruno lives in Kyoto.', date: '2026-03-05' },
    ]);
    const run = await vault.dream({ force: true, offline: true, now: new Date('2026-03-25T06:00:00Z') });
    expect(run.status, run.reason).toBe('ok');
  }, 180_000);

  it('keeps the sure value current and flags the unsure one', async () => {
    const page = await pageWith(vault, "Ana's employer", /Initrode/);
    const text = await read(vault, page);
    expect(text).toMatch(/^- Ana's employer:: Initrode \[\[2026-03-02#/m);
    expect(text).toMatch(/^- \[ \] \*\*Ana's employer\*\*: "Oscorp" \[\[2026-03-20#\^f-[0-9a-z]+\]\], an unsure reading on 2026-03-20/m);
    expect(text).not.toMatch(/^- Ana's employer:: Oscorp/m);
    const inbox = await read(vault, '0_Inbox/conflicts.md');
    expect(inbox).toMatch(/^- \[ \] \*\*Ana's employer\*\*/m); // open until a person decides
  });

  it('makes the unsure value current once a person ticks it', async () => {
    const page = await pageWith(vault, "Ana's employer", /Initrode/);
    const text = await read(vault, page);
    await writeFile(path.join(vault.root, page), text.replace(/^- \[ \] (\*\*Ana's employer\*\*)/m, '- [x] $1'));
    await git(vault.root, ['add', '-A']);
    await git(vault.root, ['commit', '-qm', 'yes, Ana joined Oscorp']);
    await remember(vault, [{ text: 'Ana bikes to work', date: '2026-03-26' }]);
    const run = await vault.dream({ force: true, offline: true, now: new Date('2026-03-28T06:00:00Z') });
    expect(run.status, run.reason).toBe('ok');
    const after = await read(vault, page);
    expect(after).toMatch(/^- Ana's employer:: Oscorp \[\[2026-03-20#/m);
    expect(after).toMatch(/^- Ana's employer: Initrode \[\[2026-03-02#\^f-[0-9a-z]+\]\] \(until 2026-03-20\)$/m);
    expect(after).toMatch(/^- \[x\] \*\*Ana's employer\*\*/m); // the person's tick, kept, now under History
    expect(await read(vault, 'MEMORY.md')).not.toContain('Initrode');
  });

  it('puts neither value of one day under Current', async () => {
    const page = await pageWith(vault, "Bruno's home city", /Oslo/);
    const text = await read(vault, page);
    expect(text).toMatch(/^- \[ \] \*\*Bruno's home city\*\*: "Oslo" .* or "Kyoto" .*, both on 2026-03-05$/m);
    expect(text).not.toMatch(/home city:: (Oslo|Kyoto)/);
    expect(await read(vault, 'MEMORY.md')).not.toMatch(/home city:: (Oslo|Kyoto)/);
  });
});

describe('MEMORY.md gathers durable plain-English statements', { timeout: 240_000 }, () => {
  it('holds family, work and plans said in a conversation, never a question or a greeting', async () => {
    const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
    const turns = [
      'Caroline: Hey Melanie! How have you been lately?',
      "Melanie: My daughter started kindergarten this week and she loves her teacher.",
      'Caroline: I got a new job as a counselor at the youth center downtown.',
      'Melanie: Are you going to the pottery class on Friday?',
      'Caroline: I plan to apply for the adoption agency program next spring.',
      'Melanie: Thanks, Caroline! Talk soon.',
    ];
    for (const text of turns) await vault.remember([{ text, category: 'moment' as never, tags: [] }], { source: 'test', now: new Date('2026-05-08T10:00:00Z') });
    const run = await vault.dream({ force: true, offline: true, now: new Date('2026-05-10T06:00:00Z') });
    expect(run.status, run.reason).toBe('ok');
    const memory = await read(vault, 'MEMORY.md');
    const items = memory.split('\n').filter((l) => l.startsWith('- '));
    expect(memory).toMatch(/^## Family and friends$/m);
    expect(memory).toMatch(/daughter started kindergarten/);
    expect(memory).toMatch(/^## Work and study$/m);
    expect(memory).toMatch(/counselor at the youth center/);
    expect(memory).toMatch(/adoption agency program/);
    for (const item of items) {
      expect(item).not.toMatch(/\?\s*— \[\[/);
      expect(item).not.toMatch(/^- (?:\w+: )?(?:hey|thanks)\b/i);
    }
  });
});
