/**
 * `vaultkeeper mcp --http` answers no request without its bearer token (issue 29), except GET /health; a token it
 * generates lives outside the vault and is never printed; beyond loopback it needs a token of the person's own;
 * sessions are capped, with a clear error past the cap, and closed when idle (issue 30).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGTERM');
});

interface Served {
  url: URL;
  stderr: () => string;
}

async function serve(root: string, args: string[], env: Record<string, string>): Promise<Served> {
  const child = spawn(process.execPath, [CLI, '--vault', root, 'mcp', '--http', '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  running.push(child);
  let err = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      // The config line comes after the url: wait for it, so stderr() holds both.
      const match = /over Streamable HTTP at (http:\/\/\S+)[\s\S]*client config: \{/.exec(err);
      if (match) resolve(new URL(match[1]!));
    });
    child.once('exit', (code) => reject(new Error(`mcp --http exited ${code}: ${err}`)));
  });
  return { url, stderr: () => err };
}

async function post(url: URL, headers: Record<string, string>): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

async function connect(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'vk-auth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe('mcp --http and its token', () => {
  it('refuses every request without the token (401), serves with it (200), and answers /health without one', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    const token = 'env-token-0123456789abcdef';
    const { url, stderr } = await serve(root, ['--token-env', 'VK_TEST_TOKEN'], { VK_TEST_TOKEN: token, XDG_CONFIG_HOME: path.join(dir, 'config') });

    const none = await post(url, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.body).toMatch(/missing or wrong bearer token/);
    expect((await post(url, { authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
    expect((await post(url, { authorization: token })).status).toBe(401); // no "Bearer"
    expect((await fetch(new URL('/mcp', url), { method: 'GET' })).status).toBe(401);
    expect((await fetch(new URL('/other', url))).status).toBe(401); // no route is told apart without the token
    const ok = await post(url, { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('"serverInfo"');

    const health = await fetch(new URL('/health', url));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, max_sessions: 100 });

    // The real client: with the token it works; without it the connection is refused.
    const client = await connect(url, token);
    expect((await client.callTool({ name: 'memory_status', arguments: {} })).isError).toBeFalsy();
    await client.close();
    const stranger = new Client({ name: 'stranger', version: '1' });
    await expect(stranger.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow(/401|bearer/i);

    // The config names the variable, never its value.
    expect(stderr()).toContain('"Authorization": "Bearer ${VK_TEST_TOKEN}"');
    expect(stderr()).not.toContain(token);
  }, 60_000);

  it('generates a token once, outside the vault (mode 0600), never printed, and uses it on the next start', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    const config = path.join(dir, 'config');
    const first = await serve(root, [], { XDG_CONFIG_HOME: config });
    const file = path.join(config, 'vaultkeeper', 'mcp-token');
    const token = (await readFile(file, 'utf8')).trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(first.stderr()).toContain(`generated a bearer token in ${file}`);
    expect(first.stderr()).toContain(`export VK_MCP_TOKEN="$(cat ${file})"`);
    expect(first.stderr()).not.toContain(token);
    expect((await post(first.url, {})).status).toBe(401);
    expect((await post(first.url, { authorization: `Bearer ${token}` })).status).toBe(200);
    // Nowhere in the vault, its git or its history.
    expect(await git(root, ['grep', '-I', token, 'HEAD']).catch(() => '')).toBe('');
    expect(await git(root, ['log', '--all', '-p']).then((log) => log.includes(token))).toBe(false);
    running.splice(0).forEach((c) => c.kill('SIGTERM'));

    const second = await serve(root, [], { XDG_CONFIG_HOME: config });
    expect(second.stderr()).toContain(`the bearer token is in ${file}`);
    expect((await readFile(file, 'utf8')).trim()).toBe(token);
    expect((await post(second.url, { authorization: `Bearer ${token}` })).status).toBe(200);
  }, 60_000);

  it('refuses to listen beyond loopback without a token of the person\'s own, and a token env that is unset or short', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    const env = { XDG_CONFIG_HOME: path.join(dir, 'config') };
    const open = await runCli(['--vault', root, 'mcp', '--http', '--host', '0.0.0.0', '--port', '0'], { env, timeoutMs: 20_000 });
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/listening on 0\.0\.0\.0, beyond this machine, needs a token of your own; .*--token-env/);
    const unset = await runCli(['--vault', root, 'mcp', '--http', '--port', '0', '--token-env', 'VK_NOT_SET'], { env, timeoutMs: 20_000 });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/--token-env names VK_NOT_SET, which is not set/);
    const short = await runCli(['--vault', root, 'mcp', '--http', '--port', '0', '--token-env', 'VK_SHORT'], { env: { ...env, VK_SHORT: 'abc' }, timeoutMs: 20_000 });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/under 16 characters/);
  }, 60_000);
});

describe('mcp --http sessions', () => {
  it('caps open sessions with a clear error, and expires idle ones', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    const token = 'env-token-0123456789abcdef';
    const { url, stderr } = await serve(root, ['--token-env', 'VK_TEST_TOKEN', '--max-sessions', '2', '--idle-timeout', '2'], {
      VK_TEST_TOKEN: token,
      XDG_CONFIG_HOME: path.join(dir, 'config'),
    });
    const a = await connect(url, token);
    const b = await connect(url, token);
    const third = await post(url, { authorization: `Bearer ${token}` });
    expect(third.status).toBe(503);
    expect(third.body).toMatch(/too many sessions: 2 are open, the most this server keeps; close one .* --max-sessions/);
    expect(third.headers.get('retry-after')).toBe('2');
    expect(await (await fetch(new URL('/health', url))).json()).toMatchObject({ sessions: 2, max_sessions: 2 });

    // Closing one (DELETE) frees its place at once.
    await (a.transport as StreamableHTTPClientTransport).terminateSession();
    await a.close();
    const c = await connect(url, token);
    expect((await c.callTool({ name: 'memory_status', arguments: {} })).isError).toBeFalsy();

    // Idle past 2 s: both closed by the server; a call on an expired session is told so, and new sessions open.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(stderr()).toMatch(/http session \S+ expired after \d+ s idle/);
    expect(await (await fetch(new URL('/health', url))).json()).toMatchObject({ sessions: 0 });
    await expect(b.callTool({ name: 'memory_status', arguments: {} })).rejects.toThrow(/unknown or expired session|404/);
    const d = await connect(url, token);
    expect((await d.callTool({ name: 'memory_status', arguments: {} })).isError).toBeFalsy();
    for (const client of [b, c, d]) await client.close().catch(() => undefined);
  }, 60_000);
});
