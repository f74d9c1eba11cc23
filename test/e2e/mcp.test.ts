/**
 * `vaultkeeper mcp`: a real MCP client from the SDK spawns the built server over stdio on a temp vault and
 * calls every tool, good inputs and bad; the server answers a bad call with a tool error and keeps working.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { git, initVault } from '../helpers/vault.js';
import { writeTree } from '../helpers/tmp.js';
import { hashTree } from '../helpers/tree.js';

const TOOLS = ['memory_consolidate', 'memory_context', 'memory_forget', 'memory_read', 'memory_recent', 'memory_remember', 'memory_search', 'memory_status'];

/** A day `n` days before today (UTC): before today in any time zone, so the dream sees it as pending. */
function daysAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

const DAY1 = daysAgo(30);
const DAY2 = daysAgo(29);

interface Started {
  client: Client;
  stderr: () => string;
}

async function startServer(root: string): Promise<Started> {
  // The SDK's default environment (PATH, HOME, …), as an MCP host gives it; no VAULTKEEPER_* from ours.
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

function text(result: Awaited<ReturnType<Client['callTool']>>, index = 0): string {
  const content = (result as CallToolResult).content[index];
  if (content?.type !== 'text') throw new Error(`content ${index} is not text: ${JSON.stringify(result)}`);
  return content.text;
}

/** A tool's full answer: its structuredContent (the text is for the model; mcp-lean.test.ts checks both). */
function json<T>(result: Awaited<ReturnType<Client['callTool']>>): T {
  expect(result.isError, text(result)).toBeFalsy();
  expect(result.structuredContent, text(result)).toBeDefined();
  return result.structuredContent as T;
}

interface SearchHit {
  kind: string;
  path: string;
  line: number;
  id: string | null;
  link: string;
  text: string;
  score: number;
  date: string | null;
}

interface Remembered {
  facts: Array<{ id: string; date: string; path: string; line: number; link: string }>;
  commit: string;
}

describe('vaultkeeper mcp', () => {
  let dir: string;
  let root: string;
  let server: Started;

  const call = (name: string, args: Record<string, unknown> = {}): ReturnType<Client['callTool']> => server.client.callTool({ name, arguments: args });
  // The full data is the structuredContent; the text is one line a result (test/e2e/mcp-lean.test.ts checks both).
  const search = async (query: string, args: Record<string, unknown> = {}): Promise<SearchHit[]> => {
    const result = await call('memory_search', { query, ...args });
    expect(result.isError, text(result)).toBeFalsy();
    return (result.structuredContent as { results: SearchHit[] }).results;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vk-mcp-'));
    root = await initVault(dir);
    // The hash embedder: hybrid search without a model, fast.
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: hash\n');
    await writeTree(root, { '2_Areas/Garden Notes.md': '---\ntitle: Garden Notes\n---\n# Garden Notes\n\nThe tomatoes go in the south bed.\n' });
    await writeTree(dir, { 'secret.md': 'outside the vault: top secret\n' });
    await git(root, ['add', '-A']);
    await git(root, ['commit', '-qm', 'person: garden notes']);
    server = await startServer(root);
  });

  afterAll(async () => {
    await server?.client.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the eight tools with described inputs and honest annotations, and MEMORY.md as a resource', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string; items?: { properties?: Record<string, { description?: string }> } }>;
      for (const [field, schema] of Object.entries(properties)) {
        expect(schema.description, `${tool.name}.${field}`).toBeTruthy();
        for (const [inner, innerSchema] of Object.entries(schema.items?.properties ?? {})) expect(innerSchema.description, `${tool.name}.${field}.${inner}`).toBeTruthy();
      }
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['memory_search', 'memory_read', 'memory_status', 'memory_context', 'memory_recent']) expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(byName.memory_remember!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.memory_forget!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.memory_consolidate!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(byName.memory_consolidate!.description).toMatch(/dry run/i);
    expect(byName.memory_search!.inputSchema.required).toEqual(['query']);
    expect(byName.memory_remember!.inputSchema.properties!.facts).toMatchObject({ minItems: 1, maxItems: 100 });

    const { resources } = await server.client.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: 'vaultkeeper://memory', mimeType: 'text/markdown' }));
  });

  it('remembers facts (committed) and search finds them with a citation link', async () => {
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const remembered = json<Remembered>(
      await call('memory_remember', {
        facts: [
          { text: 'Prefers dark roast coffee', category: 'preference', tags: ['coffee'], date: DAY1 },
          { text: 'brewing method:: French press', tags: ['coffee'], date: DAY1 },
          { text: 'Plays the cello on Thursdays', category: 'skill', tags: ['music'], date: DAY2 },
        ],
        source: 'mcp-test',
      }),
    );
    expect(remembered.facts).toHaveLength(3);
    const coffee = remembered.facts[0]!;
    expect(coffee).toMatchObject({ date: DAY1, path: `logs/${DAY1}.md`, link: `[[${DAY1}#^${coffee.id}]]` });
    const log = await readFile(path.join(root, coffee.path), 'utf8');
    expect(log.split('\n')[coffee.line - 1]).toBe(`- [preference] Prefers dark roast coffee #coffee ^${coffee.id}`);
    expect(log).toMatch(/## \d\d:\d\d · mcp-test/);
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(remembered.commit);
    expect((await git(root, ['rev-parse', 'HEAD~1'])).trim()).toBe(head);

    const hits = await search('dark roast coffee');
    expect(hits[0]).toMatchObject({ kind: 'fact', id: coffee.id, path: coffee.path, line: coffee.line, link: coffee.link, date: DAY1, text: 'Prefers dark roast coffee' });
    expect(hits[0]!.score).toBeGreaterThan(0);
    // filters reach the search
    expect(await search('cello', { category: 'preference' })).toEqual([]);
    expect((await search('cello', { kind: 'fact', tag: 'music', since: DAY2, until: DAY2, k: 1 }))[0]).toMatchObject({ text: 'Plays the cello on Thursdays' });
  });

  it('forgets a fact by id or by words: search no longer finds it, and forgetting again changes nothing', async () => {
    const { facts } = json<Remembered>(
      await call('memory_remember', { facts: [{ text: 'The old office wifi password is hunter2', date: DAY2 }, { text: 'Dislikes cilantro', category: 'preference', date: DAY2 }] }),
    );
    const wifi = facts[0]!;
    expect((await search('wifi password')).map((h) => h.id)).toContain(wifi.id);

    const forgot = json<{ tombstoned: Array<{ id: string; text: string }>; already: unknown[]; commit: string; note: string }>(
      await call('memory_forget', { id: wifi.id, reason: 'a secret' }),
    );
    // The password never reached the log (capture.secrets: redact): the fact was stored with a marker.
    expect(forgot.tombstoned).toEqual([expect.objectContaining({ id: wifi.id, text: 'The old office wifi password is [redacted: password]' })]);
    expect(forgot.commit).toMatch(/^[0-9a-f]{40}$/);
    expect((await search('wifi password')).map((h) => h.id)).not.toContain(wifi.id);
    expect(await readFile(path.join(root, '.vaultkeeper/tombstones.jsonl'), 'utf8')).toContain(wifi.id);

    const again = json<{ tombstoned: unknown[]; already: Array<{ id: string }>; commit: string | null }>(await call('memory_forget', { id: wifi.id }));
    expect(again).toMatchObject({ tombstoned: [], already: [{ id: wifi.id }], commit: null });

    const byWords = json<{ tombstoned: Array<{ id: string }> }>(await call('memory_forget', { match: 'cilantro' }));
    expect(byWords.tombstoned.map((f) => f.id)).toEqual([facts[1]!.id]);
    expect(await search('cilantro')).toEqual([]);
  });

  it('reads a page, a log and MEMORY.md, fresh each time', async () => {
    const page = await call('memory_read', { path: '2_Areas/Garden Notes.md' });
    expect(page.isError).toBeFalsy();
    expect(text(page)).toBe(await readFile(path.join(root, '2_Areas/Garden Notes.md'), 'utf8'));
    const log = await call('memory_read', { path: `./logs/${DAY1}.md` });
    expect(text(log)).toContain('Prefers dark roast coffee');
    expect(text(log)).toBe(await readFile(path.join(root, `logs/${DAY1}.md`), 'utf8'));
    const memory = await call('memory_read', { path: 'MEMORY.md' });
    expect(text(memory)).toMatch(/^# Memory/);
    for (const rootFile of ['index.md', 'schema.md', 'log.md']) expect((await call('memory_read', { path: rootFile })).isError, rootFile).toBeFalsy();

    // an in-vault link to a page is read; a long file is cut with a note
    await symlink('Garden Notes.md', path.join(root, '2_Areas/Garden.md'));
    expect(text(await call('memory_read', { path: '2_Areas/Garden.md' }))).toContain('south bed');
    await writeTree(root, { '4_Resources/Big.md': `# Big\n\n${'a line of a long page\n'.repeat(20_000)}` });
    const big = text(await call('memory_read', { path: '4_Resources/Big.md' }));
    expect(Buffer.byteLength(big)).toBeLessThan(260 * 1024);
    expect(big).toMatch(/\[cut: showing the first 256 KB of \d+ KB; use memory_search/);
    await rm(path.join(root, '4_Resources/Big.md'));
    await rm(path.join(root, '2_Areas/Garden.md'));
  });

  it('consolidates: a dry run returns the diff and changes nothing; a real run commits and moves the watermark', async () => {
    const before = await hashTree(root);
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const dry = await call('memory_consolidate', { force: true, offline: true });
    expect(dry.isError, text(dry)).toBeFalsy();
    const summary = json<{ status: string; batch: { from: string; to: string }; next: string; diff?: string }>(dry);
    expect(summary).toMatchObject({ status: 'dry-run', batch: { from: DAY1, to: DAY2 } });
    expect(summary.diff).toBe(text(dry, 1)); // the diff: its own text block, and a field of the data
    expect(text(dry)).toMatch(new RegExp(`^dry-run ${DAY1}\\.\\.${DAY2}: `));
    expect(summary.next).toMatch(/dry_run: false/);
    expect(text(dry, 1)).toMatch(/^diff --git/m);
    expect(text(dry, 1)).toMatch(/\+.*Prefers dark roast coffee/);
    expect(await hashTree(root)).toEqual(before);
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
    expect(json<{ watermark: string | null }>(await call('memory_status')).watermark).toBeNull();

    const progress: string[] = [];
    const real = json<{ status: string; run: string; watermark: { before: string | null; after: string }; commit: string; next: string }>(
      await server.client.callTool({ name: 'memory_consolidate', arguments: { dry_run: false, force: true, offline: true } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ''),
      }),
    );
    expect(progress.length).toBeGreaterThan(0); // a long run reports its steps
    expect(real).toMatchObject({ status: 'ok', watermark: { before: null, after: DAY2 } });
    expect(real.next).toContain(`vaultkeeper undo ${real.run}`);
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(real.commit);
    const status = json<{ watermark: string; pending_days: number; dream: { last_run: string } }>(await call('memory_status'));
    expect(status).toMatchObject({ watermark: DAY2, pending_days: 0 });

    // pages now answer the search, and nothing is pending
    expect((await search('cello')).some((h) => h.kind === 'page')).toBe(true);
    expect(json<{ status: string }>(await call('memory_consolidate', { dry_run: false, offline: true })).status).toBe('noop');

    // the resource is read fresh: the dream regenerated MEMORY.md
    const resource = await server.client.readResource({ uri: 'vaultkeeper://memory' });
    expect(resource.contents[0]).toMatchObject({ uri: 'vaultkeeper://memory', mimeType: 'text/markdown' });
    expect((resource.contents[0] as { text: string }).text).toBe(await readFile(path.join(root, 'MEMORY.md'), 'utf8'));
  });

  it('answers each bad input with a tool error that says what to do, and keeps working', async () => {
    await symlink(path.join(dir, 'secret.md'), path.join(root, '2_Areas/escape.md'));
    await symlink('../.vaultkeeper/config.yaml', path.join(root, '2_Areas/config.md'));
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['memory_forget', { id: 'f-0000000000' }, /no fact with id f-0000000000; nothing was changed\. Find the fact with memory_search/],
      ['memory_forget', { id: 'coffee' }, /id must be a fact id like f-7k2m9q0a1b; find a fact's id with memory_search/],
      ['memory_forget', {}, /needs id or match/],
      ['memory_forget', { id: 'f-0000000000', match: 'coffee' }, /id or match, not both/],
      ['memory_forget', { match: '!!!' }, /match needs at least one word/],
      ['memory_search', { query: '' }, /query must be a non-empty text/],
      ['memory_search', { query: '   ' }, /query must be a non-empty text/],
      ['memory_search', {}, /query must be a non-empty text/],
      ['memory_search', { query: 'coffee', k: 0 }, /k must be a whole number from 1 to 50/],
      ['memory_search', { query: 'coffee', k: 51 }, /k must be a whole number from 1 to 50/],
      ['memory_search', { query: 'coffee', k: 2.5 }, /k must be a whole number from 1 to 50/],
      ['memory_search', { query: 'coffee', since: 'last week' }, /since must be a calendar date written YYYY-MM-DD/],
      ['memory_search', { query: 'coffee', kind: 'note' }, /kind must be one of: fact, page, core/],
      ['memory_search', { query: 'coffee', catgory: 'preference' }, /unknown field 'catgory'; the fields are: query, k, kind, category/],
      ['memory_remember', { facts: [] }, /facts must hold at least one fact/],
      ['memory_remember', { facts: [{ text: 'Likes tea', category: 'opinion' }] }, /category must be one of: fact, preference, correction/],
      ['memory_remember', { facts: [{ text: 'Likes tea', date: '2026-02-30' }] }, /date must be a calendar date written YYYY-MM-DD/],
      ['memory_remember', { facts: [{ text: 'Likes tea', date: '09/06/2026' }] }, /date must be a calendar date written YYYY-MM-DD/],
      ['memory_remember', { facts: [{ text: 'Likes tea' }, { text: 'Likes oolong', tags: ['!!'] }] }, /fact 2: invalid tag '!!'; tags hold letters, digits.*; nothing was written/],
      ['memory_read', { path: '../x.md' }, /outside_vault.*relative to the vault/],
      ['memory_read', { path: '/etc/passwd' }, /outside_vault.*relative to the vault/],
      ['memory_read', { path: '2_Areas/escape.md' }, /link that leads outside the vault/],
      ['memory_read', { path: '2_Areas/config.md' }, /link to \.vaultkeeper\/config\.yaml.*hidden/],
      ['memory_read', { path: '.vaultkeeper/config.yaml' }, /forbidden.*hidden folders/],
      ['memory_read', { path: '.git/HEAD' }, /forbidden.*hidden folders/],
      ['memory_read', { path: 'schema' }, /only markdown files can be read/],
      ['memory_read', { path: '2_Areas/Nope.md' }, /there is no file 2_Areas\/Nope\.md; find pages with memory_search/],
      ['memory_read', { path: 'logs/2001-01-01.md' }, /there is no log for 2001-01-01/],
      ['memory_read', { path: 'logs/notes.md' }, /logs\/ holds only the daily logs/],
      ['memory_read', { path: '' }, /path must be a vault-relative path/],
    ];
    for (const [name, args, pattern] of cases) {
      const result = await call(name, args);
      const label = `${name} ${JSON.stringify(args)}`;
      expect(result.isError, `${label}: ${text(result)}`).toBe(true);
      expect(text(result), label).toMatch(pattern);
      expect(text(result), label).not.toContain('top secret');
      // still serving
      expect((await call('memory_status')).isError, `after ${label}`).toBeFalsy();
    }
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head); // no bad call wrote anything
    expect(await search('Likes tea')).toEqual([]);
  });

  it('logs to stderr', () => {
    const log = server.stderr();
    expect(log).toMatch(/^vaultkeeper mcp: serving .* over stdio$/m);
    expect(log).toMatch(/^vaultkeeper mcp: memory_search ok \(\d+ ms\)$/m);
    expect(log).toMatch(/^vaultkeeper mcp: memory_forget failed \(\d+ ms\): no fact with id f-0000000000$/m);
  });
});

describe('vaultkeeper mcp on the wire', () => {
  it('writes nothing but JSON-RPC messages to stdout, answers the calls in flight when stdin ends, then exits 0', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vk-mcp-'));
    try {
      const root = await initVault(dir);
      const child = spawn(process.execPath, [CLI, '--vault', root, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const send = (message: object): boolean => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/call', params: { name: 'memory_remember', arguments: { facts: [{ text: 'Prefers dark roast coffee' }] } } });
      send({ id: 3, method: 'tools/call', params: { name: 'memory_search', arguments: { query: 'coffee' } } });
      send({ id: 4, method: 'tools/call', params: { name: 'memory_read', arguments: { path: '../etc/passwd' } } });
      // stdin ends at once: the calls in flight are still answered before the server exits
      child.stdin.end();
      expect(await exited).toBe(0);
      const lines = stdout.split('\n').filter((l) => l !== '');
      expect(lines.map((l) => (JSON.parse(l) as { id: number }).id).sort()).toEqual([1, 2, 3, 4]); // tool calls may answer out of order
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(stderr).toMatch(/vaultkeeper mcp: the client closed stdin; exiting once the calls in flight are answered/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
