/** The daemon's promote and discover jobs on real temp vaults with real git; the LLM is a scripted loopback server. */
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverLinks, INSIGHTS_PAGE } from '../../src/daemon/jobs/discover.js';
import { promoteMemory } from '../../src/daemon/jobs/promote.js';
import { createExecutor } from '../../src/llm/executor.js';
import type { Vault } from '../../src/vault/vault.js';
import { useFakeLlm, type Reply } from '../helpers/fake-llm.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();
const fakeLlm = useFakeLlm();

const git = (root: string, ...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
const opCommits = (root: string, op: string): string[] => git(root, 'log', '--format=%s%n%n%b%x01').split('\x01').filter((c) => c.includes(`Vaultkeeper-Op: ${op}`));

/** A person's commit: no Vaultkeeper-Op trailer. */
function personCommit(root: string, message: string): void {
  git(root, 'add', '--all');
  git(root, 'commit', '-qm', message);
}

describe('promote', () => {
  it('regenerates MEMORY.md with what searches recall, and commits only when it changed', async () => {
    const vault = await makeVault(await tempDir(), { config: 'index:\n  embedder: none\n' });
    personCommit(vault.root, 'person: full-text only');
    await vault.remember([
      { text: 'brewing method:: AeroPress', tags: ['coffee'], date: '2026-06-01' },
      { text: 'Prefers dark roast coffee', category: 'preference', tags: ['coffee'], date: '2026-06-01' },
      { text: 'Plays the cello on Thursdays', category: 'skill', tags: ['music'], date: '2026-06-02' },
    ]);
    expect((await vault.dream({ force: true })).status).toBe('ok');
    const dreamt = await readFile(path.join(vault.root, 'MEMORY.md'), 'utf8');
    expect(dreamt).not.toMatch(/## Often recalled/);
    for (const query of ['brewing method', 'dark roast coffee', 'AeroPress']) await vault.search(query);

    const first = await promoteMemory(vault, { now: new Date('2026-06-05T04:00:00Z') });
    expect(first.changed).toBe(true);
    expect(first.commit).toMatch(/^[0-9a-f]{40}$/);
    const memory = await readFile(path.join(vault.root, 'MEMORY.md'), 'utf8');
    // the coffee facts sit on the category pages they were filed under (two facts are too few for a topic page)
    expect(memory).toMatch(/## Often recalled\n\n- \[\[(General|Preferences)\]\] \(recalled \d+ times\)/);
    expect(opCommits(vault.root, 'promote')).toHaveLength(1);
    expect(git(vault.root, 'log', '-1', '--format=%B')).toMatch(/^promote: MEMORY\.md, \d+ lines in, \d+ out\n[\s\S]*\+ \[\[(General|Preferences)\]\] \(recalled/);
    expect(git(vault.root, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('MEMORY.md');

    const second = await promoteMemory(vault, { now: new Date('2026-06-06T04:00:00Z') });
    expect(second).toEqual({ changed: false, commit: null });
    expect(opCommits(vault.root, 'promote')).toHaveLength(1);
    expect(await readFile(path.join(vault.root, 'MEMORY.md'), 'utf8')).toBe(memory);
  });
});

const KEY = 'sk-test-discover-7d1f0c9a2b';

const COFFEE = `---
title: Coffee
tags: [coffee]
---
# Coffee

- I take my coffee black, no sugar, ever.
- Grinder: Comandante C40, setting 18 for filter.
`;

const ESPRESSO = `---
title: Espresso
tags: [coffee]
---
# Espresso

- Espresso shots with the Flair, 18 g in, 36 g out.
- Coffee beans from the roaster on Main Street.

## Related

- [[Coffee]]

## Notes

- Try a longer preinfusion.
`;

const PROPOSAL = JSON.stringify({
  links: [
    { from: '2_Areas/Coffee.md', to: '2_Areas/Espresso.md', why: 'both about\nbrewing coffee' },
    { from: '2_Areas/Coffee.md', to: '2_Areas/Coffee.md', why: 'itself' },
    { from: '2_Areas/Coffee.md', to: '2_Areas/Tea.md', why: 'no such page' },
    { from: '2_Areas/Espresso.md', to: '2_Areas/Coffee.md', why: 'already linked' },
  ],
  contradictions: [{ pages: ['2_Areas/Coffee.md', '2_Areas/Espresso.md'], note: 'Coffee says no sugar ever; Espresso mentions sweetened shots' }],
  questions: [{ page: '2_Areas/Coffee.md', question: 'Which filter brewer goes with grinder setting 18?' }],
});

async function discoverVault(baseUrl: string): Promise<Vault> {
  const config = `index:\n  embedder: none\ndaemon:\n  discover: true\nllm:\n  base_url: ${baseUrl}\n  model: fake\n  api_key_env: VK_TEST_LLM_KEY\n  max_attempts: 1\n`;
  const vault = await makeVault(await tempDir(), {
    config,
    env: { VK_TEST_LLM_KEY: KEY },
    files: { '2_Areas/Coffee.md': COFFEE, '2_Areas/Espresso.md': ESPRESSO, '4_Resources/digests/2026-06-01.md': '# Digest\n\ncoffee\n' },
  });
  personCommit(vault.root, 'person: coffee pages');
  await vault.reindex();
  return vault;
}

async function run(vault: Vault): Promise<Awaited<ReturnType<typeof discoverLinks>>> {
  const executor = await createExecutor({ settings: vault.ctx.config.llm, env: vault.ctx.env, root: vault.root, timeZone: vault.ctx.timeZone });
  return discoverLinks(vault, executor, { now: new Date('2026-06-07T03:00:00Z') });
}

/** Every file of the vault outside .git, as text. */
async function vaultText(root: string): Promise<string> {
  let text = '';
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (path.relative(root, file).split(path.sep)[0] === '.git') continue;
    text += await readFile(file, 'latin1');
  }
  return text;
}

describe('discover', () => {
  it('adds the valid link under ## Related once, skips bad proposals, files insights, keeps a person\'s lines, one commit, no key', async () => {
    const server = await fakeLlm([], { fallback: { text: `Here you go:\n\`\`\`json\n${PROPOSAL}\n\`\`\`` } satisfies Reply });
    const vault = await discoverVault(server.baseUrl);

    const first = await run(vault);
    expect(first).toMatchObject({ pages: 2, invalid: 0, links: 1, contradictions: 1, questions: 1, stopped: null });
    expect(first.touched.sort()).toEqual(['0_Inbox/insights.md', '2_Areas/Coffee.md']);
    // both pages were shown, with each other as candidates; the digest never was
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => r.body.messages[1]!.content).join('\n')).not.toMatch(/digests/);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);

    const coffee = await readFile(path.join(vault.root, '2_Areas/Coffee.md'), 'utf8');
    expect(coffee.startsWith(COFFEE)).toBe(true); // a person's lines, byte for byte
    expect(coffee.slice(COFFEE.length)).toBe('\n## Related\n\n- [[Espresso]] — both about brewing coffee\n');
    expect(await readFile(path.join(vault.root, '2_Areas/Espresso.md'), 'utf8')).toBe(ESPRESSO); // already linked
    const insights = await readFile(path.join(vault.root, INSIGHTS_PAGE), 'utf8');
    expect(insights).toMatch(/^---\ntitle: Insights\n/);
    expect(insights).toContain('## 2026-06-07\n');
    expect(insights).toContain('- [ ] **Contradiction**: Coffee says no sugar ever; Espresso mentions sweetened shots ([[Coffee]], [[Espresso]])');
    expect(insights).toContain('- [ ] **Question**: Which filter brewer goes with grinder setting 18? ([[Coffee]])');
    expect(insights).not.toMatch(/Tea/);

    const second = await run(vault);
    expect(second).toMatchObject({ pages: 2, links: 0, contradictions: 0, questions: 0, commit: null, touched: [] });
    const again = await readFile(path.join(vault.root, '2_Areas/Coffee.md'), 'utf8');
    expect(again).toBe(coffee);
    expect(again.match(/\[\[Espresso\]\]/g)).toHaveLength(1);
    expect((await readFile(path.join(vault.root, INSIGHTS_PAGE), 'utf8')).match(/\*\*Question\*\*/g)).toHaveLength(1);

    const commits = opCommits(vault.root, 'discover');
    expect(commits).toHaveLength(1);
    expect(commits[0]).toMatch(/^discover: \+1 links on 1 pages, 1 contradictions, 1 questions\n[\s\S]*~ 2_Areas\/Coffee\.md[\s\S]*~ 0_Inbox\/insights\.md/);
    expect(git(vault.root, 'show', '--name-only', '--format=', first.commit!).trim().split('\n').sort()).toEqual(['0_Inbox/insights.md', '2_Areas/Coffee.md']);
    expect(git(vault.root, 'status', '--porcelain', '--', '0_Inbox', '2_Areas')).toBe('');

    expect(await vaultText(vault.root)).not.toContain(KEY);
    expect(git(vault.root, 'log', '--all', '-p', '--format=%H%n%B')).not.toContain(KEY);
  });

  it('skips pages whose reply is not the JSON asked for, and commits nothing', async () => {
    const server = await fakeLlm([], { fallback: { text: 'I found some links: Coffee and Espresso go together.' } });
    const vault = await discoverVault(server.baseUrl);
    const head = git(vault.root, 'rev-parse', 'HEAD');

    const result = await run(vault);
    expect(result).toMatchObject({ pages: 2, invalid: 2, links: 0, contradictions: 0, questions: 0, touched: [], commit: null });
    expect(await readFile(path.join(vault.root, '2_Areas/Coffee.md'), 'utf8')).toBe(COFFEE);
    await expect(readFile(path.join(vault.root, INSIGHTS_PAGE), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(git(vault.root, 'rev-parse', 'HEAD')).toBe(head);
  });
});
