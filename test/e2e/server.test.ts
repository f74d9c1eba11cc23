/**
 * `vaultkeeper server` (issue 28): the built server as a child process on a real PostgreSQL, clients over real
 * HTTP. Every REST endpoint and every MCP tool refuses a request without a valid token (401), a vault of another
 * tenant (404) or outside the token's binding (403), and a write without the write scope (403); a tenant's data never
 * shows through another tenant's vault of the same name; tokens are stored hashed and never land in a vault.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, startPostgres, type Postgres } from '../helpers/postgres.js';
import { createToken, serverCli, serverEnv, startServerProcess, type ServerProcess } from '../helpers/vk-server.js';

const missing = postgresMissing();
if (missing !== null) console.warn(`skipping server tests: ${missing}`);

/** Every REST endpoint: method, path under the vault, body, the scope it needs. */
const ENDPOINTS: Array<{ method: 'GET' | 'POST'; path: string; body?: unknown; scope: 'read' | 'write' }> = [
  { method: 'POST', path: 'remember', body: { facts: [{ text: 'Cross-tenant probe fact', category: 'fact' }] }, scope: 'write' },
  { method: 'GET', path: 'search?q=coffee&k=3', scope: 'read' },
  { method: 'POST', path: 'forget', body: { match: 'nonexistent words here' }, scope: 'write' },
  { method: 'GET', path: 'read?path=MEMORY.md', scope: 'read' },
  { method: 'GET', path: 'context?subject=coffee', scope: 'read' },
  { method: 'GET', path: 'recent', scope: 'read' },
  { method: 'GET', path: 'status', scope: 'read' },
  { method: 'POST', path: 'dream', body: { force: true }, scope: 'write' },
  { method: 'POST', path: 'reindex', body: {}, scope: 'write' },
];

/** Every MCP tool with arguments valid for it. */
const TOOLS: Array<{ name: string; args: Record<string, unknown>; scope: 'read' | 'write' }> = [
  { name: 'memory_search', args: { query: 'coffee' }, scope: 'read' },
  { name: 'memory_remember', args: { facts: [{ text: 'Probe fact over MCP' }] }, scope: 'write' },
  { name: 'memory_forget', args: { match: 'nonexistent words here' }, scope: 'write' },
  { name: 'memory_read', args: { path: 'MEMORY.md' }, scope: 'read' },
  { name: 'memory_consolidate', args: { dry_run: true }, scope: 'write' },
  { name: 'memory_status', args: {}, scope: 'read' },
  { name: 'memory_context', args: { subject: 'coffee' }, scope: 'read' },
  { name: 'memory_recent', args: {}, scope: 'read' },
];

/** A token's secret part: all after `vk_<id>_` (base64url, which may itself hold `_`). */
function secretOf(token: string): string {
  const secret = token.split('_').slice(2).join('_');
  if (secret.length < 40) throw new Error(`not a token: ${token}`);
  return secret;
}

describe.skipIf(missing !== null)('vaultkeeper server', () => {
  let pgServer: Postgres;
  let dir: string;
  let env: Record<string, string>;
  let server: ServerProcess;
  const tokens: Record<string, string> = {};

  const cli = serverCli(() => env);
  const tokenFor = async (args: string[]): Promise<string> => await createToken(cli, [...args]);

  const call = (token: string | null, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${server.url}${url}`, {
      method,
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const rpc = (token: string | null, vault: string, name: string, args: Record<string, unknown>): Promise<Response> =>
    call(token, 'POST', `/v1/vaults/${vault}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' });

  beforeAll(async () => {
    pgServer = await startPostgres();
    dir = mkdtempSync(path.join(tmpdir(), 'vk-server-'));
    env = serverEnv(dir, pgServer.url);
    await cli(['server', 'vault', 'create', 'notes', '--tenant', 'ana']);
    await cli(['server', 'vault', 'create', 'work', '--tenant', 'ana']);
    await cli(['server', 'vault', 'create', 'notes', '--tenant', 'bob']);
    tokens.ana = await tokenFor(['--tenant', 'ana', '--scope', 'read,write']);
    tokens.anaNotesRead = await tokenFor(['--tenant', 'ana', '--vault', 'notes', '--scope', 'read']);
    tokens.bob = await tokenFor(['--tenant', 'bob', '--scope', 'read,write']);
    tokens.revoked = await tokenFor(['--tenant', 'ana', '--scope', 'read,write,admin']);
    await cli(['server', 'token', 'revoke', tokens.revoked.split('_')[1]!]);
    server = await startServerProcess(env, ['--no-workers']);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await pgServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints a token once, as the last line, and keeps only its hash', async () => {
    expect(tokens.ana).toMatch(/^vk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const client = new pg.Client({ connectionString: pgServer.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ hash: string }>('SELECT hash FROM vk_tokens');
      expect(rows).toHaveLength(4);
      const dump = JSON.stringify((await client.query('SELECT * FROM vk_tokens')).rows);
      for (const token of Object.values(tokens)) expect(dump).not.toContain(secretOf(token));
    } finally {
      await client.end();
    }
  });

  it('answers /health without a token, and nothing else', async () => {
    const health = await call(null, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect((await call(null, 'GET', '/v1/vaults/notes/status')).status).toBe(401);
  });

  it('refuses every endpoint without a valid token, across tenants, outside a binding and without the scope', async () => {
    for (const e of ENDPOINTS) {
      const label = `${e.method} ${e.path}`;
      const send = (token: string | null, vault: string) => call(token, e.method, `/v1/vaults/${vault}/${e.path}`, e.body);
      expect((await send(null, 'notes')).status, `${label} without a token`).toBe(401);
      expect((await send('vk_000000000000_notarealtokennotarealtokennotarealtoken0000', 'notes')).status, `${label} with an unknown token`).toBe(401);
      expect((await send(tokens.revoked!, 'notes')).status, `${label} with a revoked token`).toBe(401);
      expect((await send(tokens.bob!, 'work')).status, `${label} on another tenant's vault`).toBe(404);
      expect((await send(tokens.anaNotesRead!, 'work')).status, `${label} outside the token's vault`).toBe(403);
      if (e.scope === 'write') expect((await send(tokens.anaNotesRead!, 'notes')).status, `${label} without the write scope`).toBe(403);
      else expect((await send(tokens.anaNotesRead!, 'notes')).status, `${label} with the read scope`).toBe(200);
    }
  }, 120_000);

  it('refuses every MCP tool the same way', async () => {
    for (const t of TOOLS) {
      expect((await rpc(null, 'notes', t.name, t.args)).status, `${t.name} without a token`).toBe(401);
      expect((await rpc(tokens.revoked!, 'notes', t.name, t.args)).status, `${t.name} with a revoked token`).toBe(401);
      expect((await rpc(tokens.bob!, 'work', t.name, t.args)).status, `${t.name} on another tenant's vault`).toBe(404);
      expect((await rpc(tokens.anaNotesRead!, 'work', t.name, t.args)).status, `${t.name} outside the token's vault`).toBe(403);
      if (t.scope === 'write') expect((await rpc(tokens.anaNotesRead!, 'notes', t.name, t.args)).status, `${t.name} without the write scope`).toBe(403);
    }
  }, 120_000);

  it('serves each endpoint from the vault the URL names, within the token\'s tenant only', async () => {
    const remember = await call(tokens.ana!, 'POST', '/v1/vaults/notes/remember', { facts: [{ text: 'Ana prefers dark roast coffee', category: 'preference', tags: ['coffee'] }] });
    expect(remember.status).toBe(200);
    const remembered = (await remember.json()) as { facts: Array<{ id: string; link: string }>; commit: string };
    expect(remembered.facts[0]!.id).toMatch(/^f-/);
    expect(remembered.commit).toMatch(/^[0-9a-f]{40}/);

    const search = (await (await call(tokens.ana!, 'GET', '/v1/vaults/notes/search?q=dark%20roast&k=5')).json()) as { query: string; results: Array<{ text: string; id?: string }> };
    expect(search.query).toBe('dark roast');
    expect(search.results.map((r) => r.text).join('\n')).toContain('dark roast');
    // bob's vault of the same name is another vault: ana's fact is not there.
    const bobs = (await (await call(tokens.bob!, 'GET', '/v1/vaults/notes/search?q=dark%20roast&k=5')).json()) as { results: Array<{ text: string }> };
    expect(bobs.results.map((r) => r.text).join('\n')).not.toContain('dark roast');
    // ana's other vault neither.
    const work = (await (await call(tokens.ana!, 'GET', '/v1/vaults/work/search?q=dark%20roast&k=5')).json()) as { results: Array<{ text: string }> };
    expect(work.results.map((r) => r.text).join('\n')).not.toContain('dark roast');

    const read = (await (await call(tokens.ana!, 'GET', '/v1/vaults/notes/read?path=logs/' + remembered.facts[0]!.link.slice(2, 12) + '.md')).json()) as { text: string };
    expect(read.text).toContain('Ana prefers dark roast coffee');
    expect((await call(tokens.ana!, 'GET', '/v1/vaults/notes/read?path=../../etc/passwd')).status).toBe(400);
    const context = (await (await call(tokens.ana!, 'GET', '/v1/vaults/notes/context?subject=coffee')).json()) as object;
    expect(JSON.stringify(context)).toContain('dark roast');
    const recent = (await (await call(tokens.ana!, 'GET', '/v1/vaults/notes/recent')).json()) as object;
    expect(JSON.stringify(recent)).toContain('dark roast');
    const status = (await (await call(tokens.ana!, 'GET', '/v1/vaults/notes/status')).json()) as { pending?: unknown };
    expect(status).toHaveProperty('watermark');

    const dream = await call(tokens.ana!, 'POST', '/v1/vaults/notes/dream', { force: true });
    expect(dream.status).toBe(202);
    const job = (await dream.json()) as { job: string; kind: string };
    expect(job).toMatchObject({ kind: 'dream', job: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    // The job is the vault's: another tenant cannot see it, even by id.
    expect((await call(tokens.ana!, 'GET', `/v1/vaults/notes/jobs/${job.job}`)).status).toBe(200);
    expect((await call(tokens.bob!, 'GET', `/v1/vaults/notes/jobs/${job.job}`)).status).toBe(404);
    expect((await call(tokens.ana!, 'POST', '/v1/vaults/notes/reindex', {})).status).toBe(202);
    expect((await call(tokens.ana!, 'POST', '/v1/vaults/notes/dream', { force: 'yes' })).status).toBe(400);

    const forget = await call(tokens.ana!, 'POST', '/v1/vaults/notes/forget', { id: remembered.facts[0]!.id, reason: 'test' });
    expect(forget.status).toBe(200);
    expect(((await forget.json()) as { tombstoned: Array<{ id: string }> }).tombstoned.map((f) => f.id)).toEqual([remembered.facts[0]!.id]);
    const after = (await (await call(tokens.ana!, 'GET', '/v1/vaults/notes/search?q=dark%20roast&k=5')).json()) as { results: Array<{ text: string }> };
    expect(after.results.map((r) => r.text).join('\n')).not.toContain('dark roast');
  }, 120_000);

  it('serves MCP over Streamable HTTP per vault, to a real client', async () => {
    const connect = async (token: string, vault: string): Promise<Client> => {
      const client = new Client({ name: 'test', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/v1/vaults/${vault}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return client;
    };
    const ana = await connect(tokens.ana!, 'work');
    const names = (await ana.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(TOOLS.map((t) => t.name).sort());
    const stored = await ana.callTool({ name: 'memory_remember', arguments: { facts: [{ text: 'The work vault keeps the quarterly roadmap', category: 'fact' }] } });
    expect(stored.isError).toBeFalsy();
    const found = await ana.callTool({ name: 'memory_search', arguments: { query: 'quarterly roadmap' } });
    expect(JSON.stringify(found.content)).toContain('quarterly roadmap');
    await ana.close();
    const bob = await connect(tokens.bob!, 'notes');
    const none = await bob.callTool({ name: 'memory_search', arguments: { query: 'quarterly roadmap' } });
    expect(JSON.stringify(none.content)).not.toContain('quarterly roadmap');
    await bob.close();
  }, 60_000);

  it('keeps tokens out of vaults, logs and job rows', async () => {
    const res = await call(tokens.ana!, 'POST', '/v1/vaults/notes/remember', { facts: [{ text: `My server token is ${tokens.ana!}` }] });
    expect(res.status).toBe(200);
    const files = (root: string): string[] =>
      readdirSync(root).flatMap((name) => {
        const full = path.join(root, name);
        return statSync(full).isDirectory() ? files(full) : [full];
      });
    const secrets = Object.values(tokens).map(secretOf);
    for (const file of files(path.join(dir, 'data'))) {
      const text = readFileSync(file).toString('latin1');
      for (const secret of secrets) expect(text.includes(secret), file).toBe(false);
    }
    const history = execFileSync('git', ['-C', path.join(dir, 'data', 'vaults', 'ana', 'notes'), 'log', '-p', '--all'], { encoding: 'utf8' });
    for (const secret of secrets) expect(history).not.toContain(secret);
    for (const secret of secrets) expect(server.log()).not.toContain(secret);
    const client = new pg.Client({ connectionString: pgServer.url });
    await client.connect();
    try {
      const jobs = JSON.stringify((await client.query('SELECT data, output FROM pgboss.job')).rows);
      expect(jobs).toContain('"vault"');
      for (const secret of secrets) expect(jobs).not.toContain(secret);
    } finally {
      await client.end();
    }
  });
});
