// The API killed (SIGKILL) right after it acknowledged a remember, with other remembers still in flight: after a
// restart every acknowledged fact is in its vault exactly once (read back through the API, found by search, and
// pushed to the canonical copy by the sync job the write queued before it answered), an unanswered one at most once,
// and the working copy passes `doctor`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { postgresMissing, startPostgres, type Postgres } from '../helpers/postgres.js';
import { createToken, serverCli, serverEnv, startServerProcess, type ServerProcess } from '../helpers/vk-server.js';

const missing = postgresMissing();
if (missing !== null) console.warn(`skipping the API crash test: ${missing}`);

interface Remembered {
  facts: Array<{ id: string; path: string; text: string }>;
}

const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe.skipIf(missing !== null)('the API killed right after an acknowledged remember', () => {
  let pgServer: Postgres;
  let dir: string;
  let env: Record<string, string>;
  let token: string;
  const processes: ServerProcess[] = [];
  const cli = serverCli(() => env);

  beforeAll(async () => {
    pgServer = await startPostgres();
    dir = mkdtempSync(path.join(tmpdir(), 'vk-server-api-crash-'));
    env = serverEnv(dir, pgServer.url, { VAULTKEEPER_JOB_RETRY_DELAY_S: '1' });
    await cli(['server', 'vault', 'create', 'notes', '--tenant', 'ana']);
    token = await createToken(cli, ['--tenant', 'ana', '--scope', 'read,write']);
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await pgServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged fact exactly once after a restart', async () => {
    const api = await startServerProcess(env, ['--no-workers']);
    processes.push(api);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // One answered remember first, so that the copy and its log exist; then eight at once, killed at the first answer.
    const warm = await fetch(`${api.url}/v1/vaults/notes/remember`, { method: 'POST', headers, body: JSON.stringify({ facts: [{ text: 'Ana waters the tomatoes at dawn', date: '2026-03-02' }] }) });
    expect(warm.status).toBe(200);
    const acknowledged: Remembered['facts'] = [...((await warm.json()) as Remembered).facts];
    const unanswered: string[] = [];
    let killed = false;
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const text = `Ana sowed row ${i + 1} of basil on a windy morning`;
        try {
          const res = await fetch(`${api.url}/v1/vaults/notes/remember`, { method: 'POST', headers, body: JSON.stringify({ facts: [{ text, date: '2026-03-02' }] }) });
          if (res.status !== 200) throw new Error(`status ${res.status}`);
          const json = (await res.json()) as Remembered;
          acknowledged.push(...json.facts);
          if (!killed) {
            killed = true;
            api.child.kill('SIGKILL');
          }
        } catch {
          unanswered.push(text);
        }
      }),
    );
    expect(killed).toBe(true);
    await api.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(2);
    // The writes of one vault take its lock in turn: the kill lands with the others still in flight.
    expect(unanswered.length).toBeGreaterThan(0);

    // Restarted with its workers: it reads what the dead one acknowledged, and the queued syncs push it.
    const restarted = await startServerProcess(env);
    processes.push(restarted);
    const read = async (rel: string): Promise<string> => {
      const res = await fetch(`${restarted.url}/v1/vaults/notes/read?path=${encodeURIComponent(rel)}`, { headers });
      expect(res.status, rel).toBe(200);
      return ((await res.json()) as { text: string }).text;
    };
    const log = await read(acknowledged[0]!.path);
    const detail = `acknowledged ${acknowledged.length}, unanswered ${unanswered.length}\n${log}`;
    for (const fact of acknowledged) {
      expect(count(log, `^${fact.id}`), detail).toBe(1);
      expect(count(log, fact.text), detail).toBe(1);
    }
    for (const text of unanswered) expect(count(log, text), detail).toBeLessThanOrEqual(1);
    for (const fact of acknowledged.slice(0, 3)) {
      const res = await fetch(`${restarted.url}/v1/vaults/notes/search?q=${encodeURIComponent(fact.text)}&k=20`, { headers });
      const ids = ((await res.json()) as { results: Array<{ id?: string }> }).results.map((r) => r.id);
      expect(ids.filter((id) => id === fact.id), JSON.stringify(ids)).toHaveLength(1);
    }

    // The canonical copy gets each of them once too, from the sync jobs queued before the answers.
    const remote = path.join(dir, 'remotes', 'ana', 'notes.git');
    const remoteLog = (): string => {
      try {
        return execFileSync('git', ['--git-dir', remote, 'show', `main:${acknowledged[0]!.path}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      } catch {
        return '';
      }
    };
    const deadline = Date.now() + 90_000;
    while (!acknowledged.every((f) => remoteLog().includes(`^${f.id}`)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    const pushed = remoteLog();
    for (const fact of acknowledged) expect(count(pushed, `^${fact.id}`), `${restarted.log()}\n${pushed}`).toBe(1);

    const doctor = await runCli(['doctor', '--json', '--vault', path.join(dir, 'data', 'vaults', 'ana', 'notes')], { env, timeoutMs: 120_000 });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  }, 300_000);
});
