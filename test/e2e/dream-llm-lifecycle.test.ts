/**
 * The page lifecycle on the LLM path and in the CLI (issue 10, deliverable 6): the model's archive_page
 * moves a page the dream made but is refused a person's own page (and MEMORY.md), the instructions say
 * archiving is automatic and MEMORY.md is generated, the runner's person_page check fails a run that moved
 * a person's page whatever moved it, and `vaultkeeper dream` prints the `archived: FROM → TO` line. A
 * scripted model on 127.0.0.1, real vaults, real git, the built CLI. Dates are set relative to today, since
 * the CLI's dream runs on the real clock.
 */
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyChanges, personPagesStay } from '../../src/dream/checks.js';
import { addWorktree, removeWorktree, worktreeChanges } from '../../src/git/worktree.js';
import type { Vault } from '../../src/vault/vault.js';
import { runCli } from '../helpers/cli.js';
import { call, toolResults, tools, useFakeLlm } from '../helpers/fake-llm.js';
import { makeVault } from '../helpers/indexed-vault.js';
import { git } from '../helpers/vault.js';

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\ndream:\n  max_days: 60\n';
const GARDEN = '2_Areas/Garden.md';
const OWN = '2_Areas/Reading list.md';
const DAY_MS = 86_400_000;
/** The UTC day `days` before now, YYYY-MM-DD. */
const daysAgo = (days: number): string => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);
const at = (date: string, hour = 10): Date => new Date(`${date}T${String(hour).padStart(2, '0')}:00:00Z`);

let temp = '';
beforeAll(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'vk-dream-llm-life-'));
});
afterAll(async () => {
  if (temp !== '') await rm(temp, { recursive: true, force: true });
});

const read = (root: string, rel: string): Promise<string> => readFile(path.join(root, rel), 'utf8');
const exists = (root: string, rel: string): Promise<boolean> => readFile(path.join(root, rel)).then(() => true, () => false);

/** A vault whose garden page the offline dream made on `dreamDay`, and a person's own reading list committed after it. */
async function gardenVault(factDay: string, dreamDay: string): Promise<Vault> {
  const vault = await makeVault(await mkdtemp(path.join(temp, 'v-')), { config: CONFIG });
  for (const text of ['Tomatoes need staking by June', 'The garden bed by the fence gets morning sun', 'Compost goes on the garden in March']) {
    await vault.remember([{ text, category: 'fact', tags: ['garden'] }], { source: 'test', now: at(factDay) });
  }
  const first = await vault.dream({ force: true, offline: true, now: at(dreamDay, 6) });
  expect(first.status, first.reason).toBe('ok');
  expect(await exists(vault.root, GARDEN)).toBe(true);
  const cite = /\[\[\d{4}-\d{2}-\d{2}#\^f-[0-9a-z]+\]\]/.exec(await read(vault.root, GARDEN))![0];
  await writeFile(path.join(vault.root, OWN), `# Reading list\n\n- A book on raised beds ${cite}\n`);
  await git(vault.root, ['add', '--all']);
  await git(vault.root, ['commit', '-qm', 'my reading list']);
  return vault;
}

describe('the LLM path archives only what the dream made', { timeout: 240_000 }, () => {
  const startLlm = useFakeLlm();

  it("the model's archive_page moves a dream page and is refused a person's page and MEMORY.md; the instructions say why", async () => {
    const vault = await gardenVault(daysAgo(10), daysAgo(9));
    const own = await read(vault.root, OWN);
    const today = daysAgo(1);
    await vault.remember([{ text: 'The tool shed roof leaks', category: 'fact', tags: ['shed'] }], { source: 'test', now: at(today) });
    type Facts = Array<{ id: string; cite: string }>;
    const server = await startLlm([
      tools(call('read_log', { date: today })),
      (request) => {
        const [fact] = toolResults(request).flatMap((r) => (r.result as { facts: Facts }).facts);
        return tools(
          call('archive_page', { path: OWN }),
          call('write_page', { path: 'MEMORY.md', content: '# Core memory\n\n- The tool shed roof leaks\n' }),
          call('archive_page', { path: GARDEN }),
          call('write_page', { path: '2_Areas/Shed.md', content: `---\ntitle: Shed\ntype: topic\n---\n# Shed\n\n## Notes\n\n- The tool shed roof leaks ${fact!.cite}\n` }),
        );
      },
      tools(call('finish', { summary: 'placed the shed fact; the garden is over' })),
    ]);
    const run = await runCli(['dream', '--force', '--json', '--vault', vault.root], {
      env: { VAULTKEEPER_LLM_BASE_URL: server.baseUrl, VAULTKEEPER_LLM_MODEL: 'life-model', VAULTKEEPER_LLM_API_KEY_ENV: 'VK_LIFE_KEY', VK_LIFE_KEY: 'sk-life-test' },
    });
    const result = JSON.parse(run.stdout) as { status: string; reason: string; consolidator: string; pages: { created: string[]; archived: Array<{ from: string; to: string }> } };
    expect(result.status, `${result.reason}\n${run.stderr}`).toBe('ok');
    expect(result.consolidator).toBe('llm');

    const [ownRefused, memoryRefused, gardenMoved, shedWritten] = toolResults(server.requests[2]!);
    expect(ownRefused).toMatchObject({ ok: false });
    expect(ownRefused!.error).toMatch(/^forbidden: 2_Areas\/Reading list\.md is a person's own page \(the dream did not create it\), so it stays where it is; add what changed to it with edit_page$/);
    expect(memoryRefused).toMatchObject({ ok: false });
    expect(memoryRefused!.error).toMatch(/^forbidden: MEMORY\.md is written by the runner/);
    expect(gardenMoved).toMatchObject({ ok: true, result: { from: GARDEN, to: `5_Archives/${GARDEN}` } });
    expect(shedWritten).toMatchObject({ ok: true });

    // The model's move is the run's, in its commit; the person's page is where it was, byte for byte.
    expect(result.pages.archived).toEqual([{ from: GARDEN, to: `5_Archives/${GARDEN}` }]);
    expect(result.pages.created).toContain('2_Areas/Shed.md');
    expect(await read(vault.root, OWN)).toBe(own);
    expect(await exists(vault.root, `5_Archives/${OWN}`)).toBe(false);
    expect(await read(vault.root, 'MEMORY.md')).not.toContain('# Core memory\n\n- The tool shed roof leaks\n');
    expect(await git(vault.root, ['log', '-1', '--format=%B'])).toContain(`> ${GARDEN} -> 5_Archives/${GARDEN}`);

    const system = JSON.stringify(server.requests[0]!.body.messages[0]);
    expect(system).toContain('Archiving is automatic');
    expect(system).toContain('MEMORY.md is generated');
    const archiveTool = server.requests[0]!.body.tools!.find((t) => t.function.name === 'archive_page');
    expect(archiveTool!.function.description).toContain("a person's own pages are never archived");
  });
});

describe('the person_page check', { timeout: 120_000 }, () => {
  it("fails a run that moved a person's own page to 5_Archives, and passes one that moved the dream's", async () => {
    const vault = await gardenVault('2026-01-05', '2026-01-10');
    const base = (await git(vault.root, ['rev-parse', 'HEAD'])).trim();
    const limits = { max_changed_pages: 50, max_archived_pages: 20 } as never;
    const movedIn = async (rel: string): Promise<Awaited<ReturnType<typeof personPagesStay>>> => {
      const tree = path.join(temp, `tree-${rel.length}-${Date.now()}`);
      await addWorktree(vault.root, tree, base);
      try {
        // Moved as anything might move it, not through the tools: the check reads the tree and its history.
        await mkdir(path.dirname(path.join(tree, '5_Archives', rel)), { recursive: true });
        await rename(path.join(tree, rel), path.join(tree, '5_Archives', rel));
        const { pages, failure } = classifyChanges(await worktreeChanges(tree, base), limits);
        expect(failure).toBeNull();
        expect(pages.archived).toEqual([{ from: rel, to: `5_Archives/${rel}` }]);
        return await personPagesStay(tree, pages);
      } finally {
        await removeWorktree(vault.root, tree);
      }
    };
    expect(await movedIn(OWN)).toEqual({
      check: 'person_page',
      message: `${OWN} is a person's own page (the dream did not create it) and was moved to 5_Archives/${OWN}; a person's pages stay where they are`,
    });
    expect(await movedIn(GARDEN)).toBeNull();
  });
});

describe('the CLI names what the dream archived', { timeout: 120_000 }, () => {
  it('prints `archived: FROM → TO` for a page the real clock finds cold', async () => {
    // The garden page was made 400 days ago (the run's own clock, set through the library); the CLI's dream runs today.
    const vault = await gardenVault(daysAgo(401), daysAgo(400));
    // Yesterday's: the dream consolidates days before today.
    await vault.remember([{ text: 'Booked a train to Porto', category: 'fact', tags: ['travel'] }], { source: 'test', now: at(daysAgo(1)) });
    const run = await runCli(['dream', '--force', '--offline', '--vault', vault.root]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pages: \d+ created, \d+ updated, 1 archived; /m);
    expect(run.stdout).toContain(`archived: ${GARDEN} → 5_Archives/${GARDEN}\n`);
    // The person's own page, as old, stays.
    expect(await exists(vault.root, OWN)).toBe(true);
  });
});
