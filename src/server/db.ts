/** The server's one PostgreSQL pool (pg, loaded lazily: a quick command never loads it). */
import type { Pool, PoolClient } from 'pg';
import { VaultkeeperError, errorMessage } from '../core/errors.js';

export type Db = Pool;

export async function openDb(url: string, max = 10): Promise<Db> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its connection (a restart of Postgres) must not crash the process.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new VaultkeeperError('VK_DB', `cannot reach PostgreSQL at ${redactUrl(url)}: ${errorMessage(error)}`, { hint: 'check DATABASE_URL and that the server is running (docs/hosting.md)' });
  }
  return pool;
}

/** A URL as it may be shown: without its password. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+):[^@/]*@/, '$1:***@');
}

export async function inTransaction<T>(db: Db, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
