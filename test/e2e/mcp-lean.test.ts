/**
 * The lean MCP surface (issue 27): memory_search answers one compact line a result with the full data in
 * structuredContent (valid against its outputSchema), one fact takes one slot (its MEMORY.md line, its page
 * line and its log line are one result), memory_read reads a line range, the common flows are prompts, and the
 * tool descriptions say what the vault does now (full text unless an embedder is set) in few words.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';

function daysAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

interface Hit {
  vault: string;
  kind: 'fact' | 'page' | 'core';
  path: string;
  line: number;
  line_end: number;
  id: string | null;
  text: string;
  score: number;
  link: string;
  citations: string[];
  statements: Array<{ citations: string[] }>;
}

async function connect(root: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'vk-lean-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } }));
  return client;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error(`not text: ${JSON.stringify(result)}`);
  return content.text;
}

const FACTS = [
  'Caroline moved to Porto in March',
  'Caroline adopted a grey cat called Miso',
  'Caroline started a pottery class on Tuesdays',
  'Melanie runs a bakery near the harbour',
  'Melanie is training for the Lisbon marathon',
  'Prefers dark roast coffee from the market',
  'Prefers green tea in the evening',
];

describe('the lean MCP surface', () => {
  let dir: string;
  let root: string;
  let client: Client;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vk-mcp-lean-'));
    root = await initVault(dir);
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: none\nextract:\n  sessions: []\n');
    for (const [i, fact] of FACTS.entries()) await runJson(['--vault', root, 'remember', fact, '--date', daysAgo(10 - i), ...(fact.startsWith('Prefers') ? ['-c', 'preference'] : [])]);
    // The dream files them on pages and in MEMORY.md: each fact then stands in a log, on a page and maybe in MEMORY.md.
    expect((await runJson<{ status: string }>(['--vault', root, 'dream', '--force'])).status).toBe('ok');
    await runJson(['--vault', root, 'remember', 'Caroline plays the cello on Thursdays']);
    client = await connect(root, { XDG_CONFIG_HOME: path.join(dir, 'config') });
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a search with one line a result and the full data as structuredContent valid against the outputSchema', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'memory_search')!;
    expect(tool.outputSchema).toBeDefined();
    const result = (await client.callTool({ name: 'memory_search', arguments: { query: 'Caroline', k: 10 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const validate = new AjvJsonSchemaValidator().getValidator(tool.outputSchema as never);
    const verdict = validate(result.structuredContent);
    expect(verdict.valid, verdict.errorMessage).toBe(true);
    const hits = (result.structuredContent as { results: Hit[] }).results;
    expect(hits.length).toBeGreaterThan(2);
    const lines = text(result).trimEnd().split('\n');
    expect(lines).toHaveLength(hits.length);
    for (const [i, hit] of hits.entries()) {
      // A fact is placed by its day (its log is logs/DAY.md) and line; a page by its path and lines.
      const place = hit.kind === 'fact' ? hit.path.slice('logs/'.length, -'.md'.length) : hit.path;
      const where = hit.line_end > hit.line ? `${place}:${hit.line}-${hit.line_end}` : `${place}:${hit.line}`;
      expect(lines[i]!.startsWith(`${hit.score.toFixed(2)} ${where} `), lines[i]).toBe(true);
      // A fact's citation is its block id (the link less its day, which the line gives); a page's is its link.
      expect(lines[i]!.endsWith(hit.kind === 'fact' ? ` ^${hit.id}` : ` ${hit.link}`), lines[i]).toBe(true);
      if (hit.kind === 'fact') expect(hit.link).toBe(`[[${place}#^${hit.id}]]`);
      expect(lines[i], lines[i]).toContain(hit.text.split('\n')[0]!.trim());
      expect(hit.vault).toBe('default');
    }
    // Not the JSON it replaced: the text is close to the memory it carries.
    const memory = hits.reduce((n, h) => n + h.text.length, 0);
    expect(text(result).length).toBeLessThan(2 * memory);
    expect(hits.map((h) => h.kind)).toEqual(expect.arrayContaining(['fact', 'page']));
    expect(text(result)).not.toContain('"kind"');

    const none = (await client.callTool({ name: 'memory_search', arguments: { query: 'zeppelin' } })) as CallToolResult;
    expect(text(none)).toMatch(/^no results: try other words/);
    expect(none.structuredContent).toMatchObject({ query: 'zeppelin', results: [] });
  });

  it('gives one fact one slot: no result shows only facts a better result shows (a MEMORY.md line, a page line, a log line)', async () => {
    const kinds = new Set<string>();
    for (const query of ['Caroline', 'Melanie', 'cat Miso', 'coffee', 'Porto pottery', 'marathon bakery']) {
      const result = (await client.callTool({ name: 'memory_search', arguments: { query, k: 20 } })) as CallToolResult;
      const hits = (result.structuredContent as { results: Hit[] }).results;
      const shown = new Set<string>();
      for (const hit of hits) {
        const ids = hit.kind === 'fact' ? [hit.id!] : [...new Set(hit.statements.flatMap((s) => s.citations))];
        kinds.add(hit.kind);
        if (ids.length === 0) continue;
        expect(ids.some((id) => !shown.has(id)), `${query}: ${hit.path}:${hit.line} repeats ${ids.join(', ')}`).toBe(true);
        for (const id of ids) shown.add(id);
      }
      expect(shown.size, query).toBeGreaterThan(0);
    }
    // The fixture does hold each fact in several places: a log line, a page line and MEMORY.md.
    expect([...kinds]).toEqual(expect.arrayContaining(['fact', 'page']));
    expect(await readFile(path.join(root, 'MEMORY.md'), 'utf8')).toMatch(/dark roast coffee/);
  });

  it('reads a line range of a file, saying where the rest is', async () => {
    const page = (await readFile(path.join(root, 'MEMORY.md'), 'utf8')).split('\n');
    const whole = page.at(-1) === '' ? page.slice(0, -1) : page;
    const part = text(await client.callTool({ name: 'memory_read', arguments: { path: 'MEMORY.md', from_line: 2, max_lines: 2 } }));
    expect(part).toBe(`${whole.slice(1, 3).join('\n')}\n[lines 2-3 of ${whole.length}; next: from_line 4]\n`);
    const tail = text(await client.callTool({ name: 'memory_read', arguments: { path: 'MEMORY.md', from_line: whole.length } }));
    expect(tail).toBe(`${whole.at(-1)}\n[lines ${whole.length}-${whole.length} of ${whole.length}]\n`);
    const all = text(await client.callTool({ name: 'memory_read', arguments: { path: 'MEMORY.md', from_line: 1 } }));
    expect(all).toBe(`${whole.join('\n')}\n`);
    const past = await client.callTool({ name: 'memory_read', arguments: { path: 'MEMORY.md', from_line: 10_000 } });
    expect(past.isError).toBe(true);
    expect(text(past)).toMatch(new RegExp(`MEMORY\\.md has ${whole.length} lines; from_line must be at most ${whole.length}`));
    const bad = await client.callTool({ name: 'memory_read', arguments: { path: 'MEMORY.md', from_line: 0 } });
    expect(text(bad)).toMatch(/from_line must be a line number, 1 or more/);
  });

  it('lists prompts for the common flows, each carrying what it can read now', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['about', 'recall', 'remember_session']);
    const recall = await client.getPrompt({ name: 'recall', arguments: {} });
    const memory = await readFile(path.join(root, 'MEMORY.md'), 'utf8');
    expect((recall.messages[0]!.content as { text: string }).text).toContain(memory.trim());
    expect((recall.messages[0]!.content as { text: string }).text).toMatch(/memory_recent/);
    const about = await client.getPrompt({ name: 'about', arguments: { subject: 'Caroline' } });
    expect((about.messages[0]!.content as { text: string }).text).toMatch(/What do you know about Caroline\?[\s\S]*cello on Thursdays/);
    const remember = await client.getPrompt({ name: 'remember_session', arguments: {} });
    expect((remember.messages[0]!.content as { text: string }).text).toMatch(/memory_remember/);
  });

  it('describes full-text search when no embedder is set, in short descriptions', async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === 'memory_search')!;
    expect(search.description).toMatch(/full-text \(BM25\) search/);
    expect(search.description).not.toMatch(/semantic|hybrid/);
    for (const tool of tools) expect(tool.description!.length, tool.name).toBeLessThanOrEqual(400);
    // A server of one vault lists no field to choose one.
    for (const tool of tools) expect(tool.inputSchema.properties ?? {}, tool.name).not.toHaveProperty('vault');
  });
});

describe('the search described with an embedder set', () => {
  const tempDir = useTempDir();
  it('says hybrid full-text and semantic', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: hash\n');
    const client = await connect(root, { XDG_CONFIG_HOME: path.join(dir, 'config') });
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'memory_search')!.description).toMatch(/hybrid full-text and semantic \(hash\) search/);
    } finally {
      await client.close();
    }
  }, 60_000);
});
