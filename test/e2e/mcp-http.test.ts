/**
 * memory_context and memory_recent through a real MCP client over both transports: stdio (the built
 * server as a child process) and Streamable HTTP (`vaultkeeper mcp --http`), with the same answers;
 * the HTTP server refuses a foreign Origin or Host (DNS rebinding) and serves its own. Every tool answers compact
 * text for the model with its full data as structuredContent, valid against the tool's outputSchema, on both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, runJson } from '../helpers/cli.js';
import { git, initVault } from '../helpers/vault.js';

const TOKEN = 'test-token-0123456789abcdef';

function daysAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

interface Context {
  subject: string;
  pages: Array<{ path: string; title: string; lead: string; current: Array<{ key: string; value: string }>; open_tasks: string[]; link: string }>;
  linked: Array<{ path: string; direction: string }>;
  recent_facts: Array<{ id: string; date: string; text: string; link: string }>;
  commitments: Array<{ text: string }>;
  budget: number;
  chars: number;
  omitted: Record<string, number>;
}

interface Recent {
  since: string;
  facts: Array<{ text: string; date: string }>;
  pages: Array<{ path: string; by: string; op: string | null }>;
  dreams: Array<{ run: string; outcome: string }>;
}

/** A tool's full answer: its structuredContent (the text is for the model). */
function body<T>(result: Awaited<ReturnType<Client['callTool']>>): T {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error(`not text: ${JSON.stringify(result)}`);
  expect(result.isError, content.text).toBeFalsy();
  expect(result.structuredContent, content.text).toBeDefined();
  return result.structuredContent as T;
}

/** POSTs an initialize request with the given headers; resolves with the status and body. */
function rawInitialize(url: URL, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe('memory_context and memory_recent over stdio and Streamable HTTP', () => {
  let root: string;
  let stdio: Client;
  let http: Client;
  let server: ChildProcess;
  let url: URL;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vk-mcp-http-'));
    root = await initVault(dir);
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: hash\n');
    const vk = (...args: string[]): Promise<unknown> => runJson(['--vault', root, ...args]);
    await vk('remember', 'home city:: Lisbon', '-t', 'caroline', '--date', daysAgo(5));
    await vk('remember', 'Caroline climbs on Saturdays', '-t', 'caroline', '--date', daysAgo(5));
    await vk('remember', 'home city:: Porto', '-t', 'caroline', '--date', daysAgo(4));
    await writeFile(path.join(root, '2_Areas/Hiking.md'), '---\ntitle: Hiking\n---\n# Hiking\n\nWent up the Serra da Estrela with [[Caroline]].\n');
    await git(root, ['add', '-A']);
    await git(root, ['commit', '-qm', 'person: hiking notes']);
    expect(((await vk('dream', '--force')) as { status: string }).status).toBe('ok');
    // A person's lead paragraph on the page the dream made, and new facts after the dream.
    const page = (await git(root, ['ls-files', '*Caroline.md'])).trim();
    const text = await readFile(path.join(root, page), 'utf8');
    await writeFile(path.join(root, page), text.replace(/^# Caroline\n/m, '# Caroline\n\nCaroline is a friend from the climbing gym.\n'));
    await git(root, ['commit', '-qam', 'person: a lead for Caroline']);
    await vk('remember', 'Promised Caroline the hiking photos', '-c', 'commitment', '-t', 'caroline', '--date', daysAgo(1));
    await vk('remember', 'Caroline started a pottery class', '-t', 'caroline', '--date', daysAgo(1));

    stdio = new Client({ name: 'vk-test', version: '1.0.0' });
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe' }));

    server = spawn(process.execPath, [CLI, '--vault', root, 'mcp', '--http', '--port', '0', '--token-env', 'VK_TEST_TOKEN'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, VK_TEST_TOKEN: TOKEN, XDG_CONFIG_HOME: path.join(dir, 'config') },
    });
    url = await new Promise<URL>((resolve, reject) => {
      let err = '';
      server.stderr!.setEncoding('utf8').on('data', (d: string) => {
        err += d;
        const match = /over Streamable HTTP at (http:\/\/\S+)/.exec(err);
        if (match) resolve(new URL(match[1]!));
      });
      server.once('exit', (code) => reject(new Error(`mcp --http exited ${code}: ${err}`)));
    });
    http = new Client({ name: 'vk-test-http', version: '1.0.0' });
    await http.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  }, 120_000);

  afterAll(async () => {
    await stdio?.close();
    await http?.close();
    server?.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });

  it('serves on loopback at /mcp with the same eight tools as stdio', async () => {
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.pathname).toBe('/mcp');
    const names = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name).sort();
    expect(await names(http)).toEqual(await names(stdio));
    expect(await names(http)).toEqual(expect.arrayContaining(['memory_context', 'memory_recent']));
  });

  it('memory_context: the page with its lead and current value, links, recent facts and commitments', async () => {
    const context = body<Context>(await stdio.callTool({ name: 'memory_context', arguments: { subject: 'Caroline' } }));
    const first = context.pages[0]!;
    expect(first.title).toBe('Caroline');
    expect(first.lead).toBe('Caroline is a friend from the climbing gym.');
    // The newest value holds; the superseded one is history, not current.
    expect(first.current.filter((c) => c.key === 'home city').map((c) => c.value)).toEqual(['Porto']);
    expect(context.linked).toContainEqual(expect.objectContaining({ path: '2_Areas/Hiking.md', direction: 'in' }));
    expect(context.commitments.map((c) => c.text)).toEqual(['Promised Caroline the hiking photos']);
    expect(context.recent_facts[0]!.text).toBe('Caroline started a pottery class');
    expect(context.recent_facts[0]!.link).toMatch(/^\[\[\d{4}-\d{2}-\d{2}#\^f-[0-9a-z]{10}\]\]$/);
    expect(context.chars).toBeLessThanOrEqual(context.budget);
    expect(context.chars).toBe(JSON.stringify(context).length);

    // Over HTTP: the same answer.
    expect(body<Context>(await http.callTool({ name: 'memory_context', arguments: { subject: 'Caroline' } }))).toEqual(context);

    // A small budget keeps the page and counts what it left out.
    const small = body<Context>(await http.callTool({ name: 'memory_context', arguments: { subject: 'Caroline', budget: 500 } }));
    expect(small.chars).toBeLessThanOrEqual(600);
    expect(small.pages[0]!.title).toBe('Caroline');
    expect(Object.values(small.omitted).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);

    const bad = await http.callTool({ name: 'memory_context', arguments: { subject: 'Caroline', budget: 10 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/budget must be a whole number of characters from 500/);
  });

  it('memory_recent: new facts, pages changed by whom, the last dream', async () => {
    const recent = body<Recent>(await http.callTool({ name: 'memory_recent', arguments: { days: 7 } }));
    expect(recent.since).toBe(daysAgo(6));
    expect(recent.facts.slice(0, 2).map((f) => f.text).sort()).toEqual(['Caroline started a pottery class', 'Promised Caroline the hiking photos']);
    expect(recent.facts).toHaveLength(5);
    const caroline = recent.pages.find((p) => p.path.endsWith('Caroline.md'));
    expect(caroline).toMatchObject({ by: 'person', op: null });
    expect(recent.pages).toContainEqual(expect.objectContaining({ path: '2_Areas/Hiking.md', by: 'person' }));
    // Each page once, with its latest change: the person's lead came after the dream made the page.
    expect(recent.pages.filter((p) => p.path.endsWith('Caroline.md'))).toHaveLength(1);
    expect(recent.dreams).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    expect(body<Recent>(await stdio.callTool({ name: 'memory_recent', arguments: { days: 7 } }))).toEqual(recent);
    const one = body<Recent & { omitted: { facts: number } }>(await stdio.callTool({ name: 'memory_recent', arguments: { limit: 1 } }));
    expect(one.facts).toHaveLength(1);
    expect(one.omitted.facts).toBe(4);
  });

  it('refuses a foreign Origin or Host, and serves its own origin', async () => {
    const evil = await rawInitialize(url, { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body).toMatch(/Origin 'http:\/\/evil\.example' is not allowed/);
    const rebound = await rawInitialize(url, { host: `evil.example:${url.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatch(/Host 'evil\.example:\d+' is not this server/);
    const own = await rawInitialize(url, { origin: `http://127.0.0.1:${url.port}` });
    expect(own.status).toBe(200);
    expect(own.body).toContain('"serverInfo"');
  });

  it('answers every tool with compact text and structuredContent valid against its outputSchema, over stdio and HTTP', async () => {
    for (const [client, boat] of [[stdio, 'kayak'], [http, 'canoe']] as const) {
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t.outputSchema?.type])).toEqual(tools.map((t) => [t.name, 'object']));
      const validator = new AjvJsonSchemaValidator();
      const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; data: Record<string, unknown> }> => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        const first = result.content[0];
        if (first?.type !== 'text') throw new Error(`${name}: not text`);
        expect(result.isError, first.text).toBeFalsy();
        const verdict = validator.getValidator(tools.find((t) => t.name === name)!.outputSchema as never)(result.structuredContent);
        expect(verdict.valid, `${name}: ${verdict.errorMessage}`).toBe(true);
        // Text an LLM reads, not the JSON it replaced.
        expect(() => JSON.parse(first.text), `${name}: ${first.text}`).toThrow();
        return { text: first.text, data: result.structuredContent! };
      };
      const shorter = (name: string, answer: { text: string; data: Record<string, unknown> }): void => {
        expect(answer.text.length, name).toBeLessThan(JSON.stringify(answer.data).length);
      };

      const remembered = await call('memory_remember', { facts: [{ text: `Caroline bought a red ${boat}`, tags: ['caroline'] }] });
      const fact = (remembered.data as { facts: Array<{ id: string; date: string; line: number }> }).facts[0]!;
      expect(remembered.text).toMatch(new RegExp(`^remembered ${fact.date}:${fact.line} Caroline bought a red ${boat} \\^${fact.id}\ncommit [0-9a-f]{8}\n$`));
      shorter('memory_remember', remembered);

      const context = await call('memory_context', { subject: 'Caroline' });
      expect(context.text).toMatch(/^\[\[Caroline\]\] \S*Caroline\.md: Caroline\n/);
      expect(context.text).toContain('current: home city: Porto');
      expect(context.text).toContain(`\n${fact.date} Caroline bought a red ${boat} ^${fact.id}\n`);
      shorter('memory_context', context);

      const recent = await call('memory_recent', { days: 7 });
      expect(recent.text).toMatch(/^since \d{4}-\d\d-\d\d\nfacts:\n/);
      expect(recent.text).toMatch(/\ndreams:\n\d{4}-\d\d-\d\d run \S+ ok: /);
      shorter('memory_recent', recent);

      const status = await call('memory_status', {});
      expect(status.text).toMatch(/^watermark \d{4}-\d\d-\d\d; pending \d+ days, \d+ facts/);
      expect(status.data).toMatchObject({ vault: root });
      shorter('memory_status', status);

      const read = await call('memory_read', { path: fact.date, from_line: fact.line, max_lines: 1 });
      expect(read.data).toMatchObject({ path: `logs/${fact.date}.md`, from_line: fact.line, to_line: fact.line, truncated: false });
      expect(read.text).toContain(`Caroline bought a red ${boat}`);

      const dry = await call('memory_consolidate', { force: true, offline: true });
      expect(dry.text).toMatch(/^dry-run \d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d: /);
      expect(dry.data).toMatchObject({ status: 'dry-run', diff: expect.stringMatching(/^diff --git/m) });

      const forgot = await call('memory_forget', { id: fact.id });
      expect(forgot.text).toMatch(new RegExp(`^forgot 1 fact; .*\nforgot ${fact.date}:${fact.line} Caroline bought a red ${boat} \\^${fact.id}\n`));
      shorter('memory_forget', forgot);
    }
  });

  it('refuses --port without --http', async () => {
    const result = await runCli(['--vault', root, 'mcp', '--port', '9999']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port, --host, --allow-origin, --token-env, --max-sessions and --idle-timeout go with --http/);
  });
});
