// The global LLM rate budget (issue 28): every worker takes its calls from one count per minute in PostgreSQL
// (caps.ts takeRateSlot), so two worker processes together never make more calls in a minute than the budget.
// Each process here is a real Node process running the built module against a real PostgreSQL; a call over the
// budget would wait for the next minute, and the test's `sleep` records that wait instead of sleeping through it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/server/db.js';
import { migrate } from '../../src/server/migrations.js';
import { postgresMissing, startPostgres, type Postgres } from '../helpers/postgres.js';

const execFileAsync = promisify(execFile);
const missing = postgresMissing();
const DIST = fileURLToPath(new URL('../../dist/server/', import.meta.url));
const BUDGET = 3;
const TRIES = 5;

/** One worker's loop: take up to TRIES slots; stop at the first wait (the budget of this minute is spent). */
const WORKER = `
const [, url, budget, tries, dist] = process.argv;
const { openDb } = await import(dist + 'db.js');
const { takeRateSlot } = await import(dist + 'caps.js');
const db = await openDb(url, 2);
const waited = new Error('waited');
let taken = 0;
let waits = 0;
try {
  for (let i = 0; i < Number(tries); i++) {
    await takeRateSlot(db, Number(budget), async (ms) => { waits++; if (ms <= 0 || ms > 60_250) throw new Error('bad wait ' + ms); throw waited; });
    taken++;
  }
} catch (error) {
  if (error !== waited) throw error;
}
await db.end();
console.log(JSON.stringify({ taken, waits }));
`;

async function worker(url: string): Promise<{ taken: number; waits: number }> {
  const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', WORKER, url, String(BUDGET), String(TRIES), DIST]);
  return JSON.parse(stdout) as { taken: number; waits: number };
}

describe.skipIf(missing !== null)('the LLM rate budget shared by worker processes', () => {
  let pgServer: Postgres;

  beforeAll(async () => {
    pgServer = await startPostgres();
    const db = await openDb(pgServer.url, 1);
    await migrate(db);
    await db.end();
  }, 120_000);

  afterAll(async () => {
    await pgServer?.stop();
  });

  it('two processes together take the minute’s budget once, and the calls past it wait', async () => {
    // Not across a minute's turn: the budget is per calendar minute.
    const second = new Date().getUTCSeconds();
    if (second >= 45) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    const [a, b] = await Promise.all([worker(pgServer.url), worker(pgServer.url)]);
    expect(a.taken + b.taken).toBe(BUDGET);
    expect(a.waits + b.waits).toBe(2);

    const db = await openDb(pgServer.url, 1);
    try {
      const { rows } = await db.query<{ calls: number }>('SELECT calls FROM vk_llm_rate');
      expect(rows).toEqual([{ calls: BUDGET }]);
    } finally {
      await db.end();
    }
  }, 120_000);
});
