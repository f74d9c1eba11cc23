/**
 * Forgetting is immediate (issue 26, deliverable 5), through the built CLI and a real MCP client over stdio:
 * `forget --match` takes the forgotten line off its page and out of MEMORY.md in its own single commit, at once,
 * so the MCP resource vaultkeeper://memory and memory_read of a server started before the forget no longer show it;
 * `--json` counts what changed; a later dream's `forgotten` counts the lines it took off; `remember` of the
 * forgotten text says a tombstone hides it.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, runJson } from '../helpers/cli.js';
import { git, gitStatus, initVault } from '../helpers/vault.js';

/** A day `n` days before today (UTC): before today in any time zone, so the dream sees it as pending. */
const daysAgo = (n: number): string => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const DAY1 = daysAgo(20);
const DAY2 = daysAgo(19);
const DAY3 = daysAgo(5);
const PEANUTS = /peanut/i;

interface ForgetJson {
  tombstoned: Array<{ id: string; text: string }>;
  already: Array<{ id: string }>;
  pages: Array<{ path: string; lines: number }>;
  page_lines: number;
  memory: { changed: boolean; removed: number; added: number };
  commit: string | null;
}

interface DreamJson {
  status: string;
  reason: string;
  forgotten: number;
}

async function remember(root: string, text: string, date: string, extra: string[] = []): Promise<{ facts: Array<{ id: string }>; hidden: string[]; hidden_note?: string }> {
  return runJson(['--vault', root, 'remember', text, '--date', date, ...extra]);
}

/** Every markdown file of the vault outside logs/ and hidden folders whose text names the allergy. */
async function filesNaming(root: string, pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  for (const rel of await readdir(root, { recursive: true })) {
    if (!rel.endsWith('.md') || rel.startsWith('logs') || rel.startsWith('.')) continue;
    if (pattern.test(await readFile(path.join(root, rel), 'utf8'))) found.push(rel);
  }
  return found.sort();
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error(`not text: ${JSON.stringify(result)}`);
  return content.text;
}

describe('forget is immediate everywhere', { timeout: 300_000 }, () => {
  let temp = '';
  let root = '';
  let client: Client;
  let page = '';

  beforeAll(async () => {
    // One vault for the whole story, each step building on the last.
    temp = await mkdtemp(path.join(os.tmpdir(), 'vk-forget-now-'));
    root = await initVault(temp);
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'timezone: UTC\nindex:\n  embedder: none\n');
    await git(root, ['commit', '-qam', 'config']);
    await remember(root, 'Allergic to peanuts', DAY1);
    await remember(root, 'Dentist appointment on 2030-01-15', DAY1, ['--tag', 'health']);
    await remember(root, 'Prefers dark roast coffee', DAY1, ['-c', 'preference']);
    await remember(root, 'Takes the bus to work', DAY2);
    const dream = await runJson<DreamJson>(['--vault', root, 'dream', '--force', '--offline']);
    expect(dream.status, dream.reason).toBe('ok');
    const holding = (await filesNaming(root, PEANUTS)).filter((rel) => rel !== 'MEMORY.md');
    expect(holding).toHaveLength(1);
    page = holding[0]!;
    expect(await readFile(path.join(root, 'MEMORY.md'), 'utf8')).toMatch(/^- Allergic to peanuts — \[\[/m);

    // A long-lived server, started before the forget: it must not serve what it read before.
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe' });
    client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
    await client.connect(transport);
    const resource = await client.readResource({ uri: 'vaultkeeper://memory' });
    expect(JSON.stringify(resource.contents)).toMatch(PEANUTS);
    expect(text(await client.callTool({ name: 'memory_read', arguments: { path: page } }))).toMatch(PEANUTS);
  }, 240_000);

  afterAll(async () => {
    await client?.close();
    if (temp !== '') await rm(temp, { recursive: true, force: true });
  });

  it('scrubs the page line and MEMORY.md in one commit, with counts that match, and MCP follows at once', async () => {
    const commits = Number((await git(root, ['rev-list', '--count', 'HEAD'])).trim());
    const memoryBefore = await readFile(path.join(root, 'MEMORY.md'), 'utf8');
    const pageBefore = await readFile(path.join(root, page), 'utf8');

    const result = await runJson<ForgetJson>(['--vault', root, 'forget', '--match', 'allergic to peanuts']);

    expect(result.tombstoned.map((f) => f.text)).toEqual(['Allergic to peanuts']);
    // The statement's line, and the page's lead where it quotes it.
    const held = pageBefore.split('\n').filter((l) => /allergic to peanuts/i.test(l)).length;
    expect(held).toBeGreaterThanOrEqual(1);
    expect(result.pages).toEqual([{ path: page, lines: held }]);
    expect(result.page_lines).toBe(held);
    // MEMORY.md lost exactly its allergy line; nothing the cap had left out was waiting to enter.
    expect(result.memory).toEqual({ changed: true, removed: 1, added: 0 });

    // The files: the one line went from the page, the rest stayed, byte for byte.
    const pageAfter = await readFile(path.join(root, page), 'utf8');
    expect(pageAfter).toBe(pageBefore.split('\n').filter((l) => !PEANUTS.test(l)).join('\n'));
    const memoryAfter = await readFile(path.join(root, 'MEMORY.md'), 'utf8');
    expect(memoryAfter).not.toMatch(PEANUTS);
    expect(memoryAfter).toContain('Dentist appointment on 2030-01-15');
    expect(memoryAfter.split('\n')[2]).toBe(memoryBefore.split('\n')[2]); // the header keeps the last dream's run
    expect(await filesNaming(root, PEANUTS)).toEqual([]);

    // One commit, the forget's, holding the tombstone, the page and MEMORY.md; nothing left uncommitted.
    expect(Number((await git(root, ['rev-list', '--count', 'HEAD'])).trim())).toBe(commits + 1);
    expect(result.commit).toBe((await git(root, ['rev-parse', 'HEAD'])).trim());
    expect((await git(root, ['show', '--name-only', '--format=', 'HEAD'])).trim().split('\n').sort()).toEqual(['.vaultkeeper/tombstones.jsonl', 'MEMORY.md', page].sort());
    const message = await git(root, ['log', '-1', '--format=%B']);
    expect(message).toMatch(/^forget: 1 fact \(text matching "allergic to peanuts"\)\n/);
    expect(message).toContain(`~ ${page} (${held})`);
    expect(message).toContain('MEMORY.md: 1 fact out (the next dream regenerates it).');
    expect(await gitStatus(root)).toEqual([]);
    // The scratch tree the last dream kept for the next (a checkout of its pages) holds the line no more either.
    const scratch = path.join(root, '.vaultkeeper/worktrees');
    const keptPages = (await readdir(scratch, { recursive: true }).catch(() => [] as string[])).filter((rel) => rel.endsWith('.md') && !/(?:^|[\\/])logs[\\/]/u.test(rel));
    for (const rel of keptPages) expect(await readFile(path.join(scratch, rel), 'utf8'), rel).not.toMatch(PEANUTS);

    // The server started before the forget reads the files as they are now.
    const resource = await client.readResource({ uri: 'vaultkeeper://memory' });
    expect(JSON.stringify(resource.contents)).not.toMatch(PEANUTS);
    expect(JSON.stringify(resource.contents)).toContain('Dentist appointment');
    expect(text(await client.callTool({ name: 'memory_read', arguments: { path: 'MEMORY.md' } }))).not.toMatch(PEANUTS);
    const read = text(await client.callTool({ name: 'memory_read', arguments: { path: page } }));
    expect(read).not.toMatch(PEANUTS);
    // And search, over the CLI and MCP.
    const hits = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', 'allergic to peanuts']);
    expect(hits.results.map((h) => h.text).join('\n')).not.toMatch(PEANUTS);
    const served = (await client.callTool({ name: 'memory_search', arguments: { query: 'peanuts allergy' } })).structuredContent as { results: unknown[] };
    expect(JSON.stringify(served.results)).not.toMatch(PEANUTS);
  });

  it('forgets again: already forgotten, nothing to remove, no commit', async () => {
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const again = await runJson<ForgetJson>(['--vault', root, 'forget', '--match', 'allergic to peanuts']);
    expect(again).toMatchObject({ tombstoned: [], pages: [], page_lines: 0, memory: { changed: false, removed: 0, added: 0 }, commit: null });
    expect(again.already).toHaveLength(1);
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
  });

  it('forgets again over a line a person wrote back: their uncommitted edit is committed as theirs first, then the line goes', async () => {
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const before = await readFile(path.join(root, page), 'utf8');
    await writeFile(path.join(root, page), `${before}- Swims on Tuesdays\n- Allergic to peanuts since childhood\n`);
    const again = await runJson<ForgetJson>(['--vault', root, 'forget', '--match', 'allergic to peanuts']);
    // MEMORY.md held no such line, so none leaves it and it is not rewritten (the person's new line enters at the next dream).
    expect(again).toMatchObject({ tombstoned: [], pages: [{ path: page, lines: 1 }], page_lines: 1, memory: { changed: false, removed: 0, added: 0 } });
    expect(await readFile(path.join(root, 'MEMORY.md'), 'utf8')).not.toMatch(PEANUTS);
    expect(again.commit).toBe((await git(root, ['rev-parse', 'HEAD'])).trim());
    expect((await git(root, ['rev-parse', 'HEAD~2'])).trim()).toBe(head);
    expect(await git(root, ['log', '-2', '--format=%s'])).toBe(`forget: 1 page line of facts forgotten before (text matching "allergic to peanuts")\nsnapshot: a person's edits before forget\n`);
    expect(await git(root, ['log', '-1', '--format=%B', 'HEAD~1'])).toMatch(/^Vaultkeeper-Op: snapshot$/m);
    // The forget commit takes away the one line; the person's other line stays, committed as theirs.
    const diff = await git(root, ['show', '--format=', '-U0', 'HEAD', '--', page]);
    expect(diff.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l))).toEqual(['-- Allergic to peanuts since childhood']);
    expect(await readFile(path.join(root, page), 'utf8')).toBe(`${before}- Swims on Tuesdays\n`);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('a dream counts in `forgotten` the lines it took off: a line a person wrote back is removed and counted', async () => {
    // A person writes the allergy back by hand: the index hides it, and the next dream takes it off the page.
    await writeFile(path.join(root, page), `${await readFile(path.join(root, page), 'utf8')}- Allergic to peanuts, the nurse said\n`);
    await remember(root, 'Takes the train on Fridays', DAY3);
    const dream = await runJson<DreamJson>(['--vault', root, 'dream', '--force', '--offline']);
    expect(dream.status, dream.reason).toBe('ok');
    expect(dream.forgotten).toBe(1);
    expect(await filesNaming(root, PEANUTS)).toEqual([]);
    expect(await git(root, ['log', '-1', '--format=%B'])).toContain('1 page lines citing or repeating forgotten facts were removed.');
  });

  it('a dream with nothing forgotten on the pages reports 0', async () => {
    await remember(root, 'Takes the tram on Mondays', daysAgo(4));
    const dream = await runJson<DreamJson>(['--vault', root, 'dream', '--force', '--offline']);
    expect(dream.status, dream.reason).toBe('ok');
    expect(dream.forgotten).toBe(0);
  });

  it('remember of a forgotten text appends it and says a tombstone hides it, on stderr and in --json, and over MCP', async () => {
    const log = path.join(root, `logs/${daysAgo(2)}.md`);
    const result = await runCli(['--vault', root, 'remember', 'Allergic to peanuts', '--date', daysAgo(2), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as { facts: Array<{ id: string }>; hidden: string[]; hidden_note: string };
    expect(json.hidden).toEqual([json.facts[0]!.id]);
    expect(json.hidden_note).toMatch(/repeats a forgotten fact: stored in the log, but a tombstone hides it/);
    expect(result.stderr).toMatch(/^vaultkeeper: note: f-[0-9a-z]+ repeats a forgotten fact: .*tombstone hides it/m);
    expect(await readFile(log, 'utf8')).toContain('Allergic to peanuts'); // logs are append-only truth
    // Not hidden: a plain fact says nothing of tombstones.
    const plain = await runCli(['--vault', root, 'remember', 'Likes green tea', '--json']);
    expect(JSON.parse(plain.stdout)).toMatchObject({ hidden: [] });
    expect(plain.stderr).not.toMatch(/tombstone/);

    const reply = (await client.callTool({ name: 'memory_remember', arguments: { facts: [{ text: 'allergic to PEANUTS!' }] } })).structuredContent as { hidden: string[]; hidden_note?: string };
    expect(reply.hidden).toHaveLength(1);
    expect(reply.hidden_note).toMatch(/tombstone hides it/);
  });
});
