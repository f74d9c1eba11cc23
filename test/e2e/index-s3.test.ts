/**
 * An index on object storage (DESIGN §6: `index.uri` may be any URI LanceDB accepts): a local
 * S3-compatible server (s3rver) on 127.0.0.1 stands in for the network edge; the CLI indexes, searches,
 * rebuilds with --clear and stays healthy for doctor, with credentials and endpoint from the environment only.
 */
import { execFileSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { listFiles } from '../helpers/vault.js';

const tempDir = useTempDir();
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };

let server: InstanceType<typeof S3rver>;
let storage: string;
let endpoint: string;

beforeAll(async () => {
  const { mkdtemp } = await import('node:fs/promises');
  const os = await import('node:os');
  storage = await mkdtemp(path.join(os.tmpdir(), 'vk-s3-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: storage, configureBuckets: [{ name: 'vaults' }] });
  endpoint = `http://127.0.0.1:${(await server.run()).port}`;
});

afterAll(async () => {
  await server?.close().catch(() => undefined); // the outage test stops and restarts it
  const { rm } = await import('node:fs/promises');
  await rm(storage, { recursive: true, force: true });
});

/** What a hosted deployment passes: LanceDB reads these from the environment; none is written to the vault. */
const s3Env = (): Record<string, string> => ({
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER-secret-key',
  AWS_REGION: 'us-east-1',
  AWS_ENDPOINT: endpoint,
  AWS_ALLOW_HTTP: 'true',
  VAULTKEEPER_INDEX_URI: 's3://vaults/alice',
});

describe('an index on S3-compatible object storage', () => {
  it('indexes, searches, rebuilds with --clear and stays healthy, with nothing of it in the vault', async () => {
    const root = path.join(await tempDir(), 'vault');
    const env = s3Env();
    await runJson(['init', root]);
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: hash\nextract:\n  sessions: []\n');
    execFileSync('git', ['commit', '-qam', 'person: config'], { cwd: root });
    await runJson(['--vault', root, 'remember', 'Prefers dark roast coffee', '-t', 'coffee', '--date', '2026-06-01'], { env });
    await runJson(['--vault', root, 'remember', 'Learning Portuguese on Tuesdays', '--date', '2026-06-02'], { env });

    const built = await runJson<{ rows: number; facts: number; rebuilt: string | null }>(['--vault', root, 'reindex'], { env });
    expect(built).toMatchObject({ facts: 2, rebuilt: 'new index' });
    // The table lives in the bucket, not in .vaultkeeper/index.
    expect((await listFiles(storage)).some((f) => f.startsWith(`vaults${path.sep}alice${path.sep}rows.lance`))).toBe(true);
    expect(await readdir(path.join(root, '.vaultkeeper'))).not.toContain('index');

    const found = await runCli(['--vault', root, 'search', 'coffee', '--json'], { env });
    expect(found.stderr).toBe('');
    expect(JSON.parse(found.stdout).results.map((r: { text: string }) => r.text)).toEqual(['Prefers dark roast coffee']);

    const again = await runJson<{ added: number; rebuilt: string | null }>(['--vault', root, 'reindex'], { env });
    expect(again).toMatchObject({ added: 0, rebuilt: null });
    const cleared = await runJson<{ rows: number; facts: number; rebuilt: string | null }>(['--vault', root, 'reindex', '--clear'], { env });
    expect(cleared).toMatchObject({ rows: built.rows, facts: 2, rebuilt: 'requested' });
    const after = await runCli(['--vault', root, 'search', 'portuguese', '--json'], { env });
    expect(JSON.parse(after.stdout).results[0].text).toBe('Learning Portuguese on Tuesdays');

    const doctor = await runCli(['--vault', root, 'doctor', '--json'], { env });
    const report = JSON.parse(doctor.stdout) as { ok: boolean; problems: Array<{ code: string }> };
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);

    // Credentials come from the environment and never reach the vault's files.
    for (const rel of await listFiles(root, { includeGit: true })) {
      const text = await readFile(path.join(root, rel)).then((b) => b.toString('latin1'));
      expect(text, rel).not.toContain('S3RVER-secret-key');
    }
  });

  it('an object store that stops answering is an outage: one line, the remote table intact, no rebuild once it is back', async () => {
    const root = path.join(await tempDir(), 'vault');
    const env = { ...s3Env(), VAULTKEEPER_INDEX_URI: 's3://vaults/outage' };
    await runJson(['init', root]);
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: hash\n');
    execFileSync('git', ['commit', '-qam', 'person: config'], { cwd: root });
    await runJson(['--vault', root, 'remember', 'Prefers dark roast coffee', '--date', '2026-06-01'], { env });
    await runJson(['--vault', root, 'reindex'], { env });
    const table = async (): Promise<Map<string, string>> => {
      const files = (await listFiles(storage)).filter((f) => f.startsWith(`vaults${path.sep}outage${path.sep}`)).sort();
      return new Map(await Promise.all(files.map(async (f) => [f, (await readFile(path.join(storage, f))).toString('base64')] as [string, string])));
    };
    const before = await table();
    expect(before.size).toBeGreaterThan(0);

    // The server goes away while a search is under way, and stays away for its retries.
    const port = Number(new URL(endpoint).port);
    const searching = runCli(['--vault', root, 'search', 'coffee', '--json'], { env, timeoutMs: 150_000 });
    await server.close();
    const failed = await searching;
    if (failed.code === 0) {
      // The search won the race; one started now meets the outage for sure.
      const late = await runCli(['--vault', root, 'search', 'coffee', '--json'], { env, timeoutMs: 150_000 });
      Object.assign(failed, late);
    }
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    expect(failed.stderr).toMatch(/the index at s3:\/\/vaults\/outage could not be reached after \d+ tries \(.+\); nothing was rebuilt/);
    expect(failed.stderr).not.toMatch(/rebuilding/);

    server = new S3rver({ port, address: '127.0.0.1', silent: true, directory: storage, configureBuckets: [{ name: 'vaults' }] });
    await server.run();
    expect(await table()).toEqual(before);
    const found = await runCli(['--vault', root, 'search', 'coffee', '--json'], { env });
    expect(found.code).toBe(0);
    expect(found.stderr).toBe('');
    expect(JSON.parse(found.stdout).results.map((r: { text: string }) => r.text)).toEqual(['Prefers dark roast coffee']);
    const again = await runJson<{ rebuilt: string | null; added: number }>(['--vault', root, 'reindex'], { env });
    expect(again).toMatchObject({ rebuilt: null, added: 0 });
  }, 240_000);
});
