/**
 * The server's indexes on object storage (issue 28): with VAULTKEEPER_INDEX_URI_BASE each vault's index lives at
 * `<base>/<tenant>/<vault>` on a local S3-compatible server (s3rver), and nothing of it lands in the vault.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { postgresMissing, startPostgres, type Postgres } from '../helpers/postgres.js';
import { listFiles } from '../helpers/vault.js';
import { serverEnv, startServerProcess, type ServerProcess } from '../helpers/vk-server.js';

const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };
const missing = postgresMissing();
if (missing !== null) console.warn(`skipping server object-storage tests: ${missing}`);

describe.skipIf(missing !== null)('vaultkeeper server with indexes on object storage', () => {
  let pgServer: Postgres;
  let s3: InstanceType<typeof S3rver>;
  let dir: string;
  let env: Record<string, string>;
  let server: ServerProcess;

  beforeAll(async () => {
    pgServer = await startPostgres();
    dir = mkdtempSync(path.join(tmpdir(), 'vk-server-s3-'));
    s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 'bucket'), configureBuckets: [{ name: 'vaults' }] });
    const endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
    env = serverEnv(dir, pgServer.url, {
      VAULTKEEPER_INDEX_URI_BASE: 's3://vaults/indexes',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER-secret-key',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT: endpoint,
      AWS_ALLOW_HTTP: 'true',
    });
    const created = await runCli(['server', 'vault', 'create', 'notes', '--tenant', 'ana'], { env, timeoutMs: 60_000 });
    expect(created.code, created.stderr).toBe(0);
    server = await startServerProcess(env, ['--no-workers']);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await s3?.close();
    await pgServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps each vault's index in the bucket under its tenant and name, and none of it in the vault", async () => {
    const token = (await runCli(['server', 'token', 'create', '--tenant', 'ana', '--scope', 'read,write'], { env, timeoutMs: 60_000 })).stdout.trimEnd().split('\n').at(-1)!;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const base = `${server.url}/v1/vaults/notes`;
    const remembered = await fetch(`${base}/remember`, { method: 'POST', headers, body: JSON.stringify({ facts: [{ text: 'Learning Portuguese on Tuesdays' }] }) });
    expect(remembered.status).toBe(200);
    const search = (await (await fetch(`${base}/search?q=portuguese`, { headers })).json()) as { results: Array<{ text: string }> };
    expect(search.results.map((r) => r.text).join('\n')).toContain('Portuguese');
    const stored = await listFiles(path.join(dir, 'bucket'));
    expect(stored.some((f) => f.startsWith(path.join('vaults', 'indexes', 'ana', 'notes', 'rows.lance')))).toBe(true);
    const copy = path.join(dir, 'data', 'vaults', 'ana', 'notes');
    expect((await listFiles(copy)).filter((f) => f.startsWith(path.join('.vaultkeeper', 'index') + path.sep))).toEqual([]);
    expect(readFileSync(path.join(copy, '.vaultkeeper', 'config.yaml'), 'utf8')).not.toMatch(/s3:|S3RVER/);
  }, 120_000);
});
