/**
 * The server's tables, as ordered migrations: each runs once, in order, in one transaction, recorded in
 * vk_migrations. An advisory lock makes the API and the workers starting together apply them once.
 * The job queue's own tables are pg-boss's (schema pgboss), migrated by pg-boss itself.
 */
import type { Db } from './db.js';
import { inTransaction } from './db.js';

interface Migration {
  id: number;
  name: string;
  sql: string;
}

/** Append only: a deployed migration is never edited, a change is a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'tenants, vaults, tokens',
    sql: `
      CREATE TABLE vk_tenants (
        name text PRIMARY KEY,
        tokens_per_day bigint,
        cost_per_day double precision,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE vk_vaults (
        id bigserial PRIMARY KEY,
        tenant text NOT NULL REFERENCES vk_tenants(name),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant, name)
      );
      CREATE TABLE vk_tokens (
        id text PRIMARY KEY,
        hash text NOT NULL UNIQUE,
        tenant text NOT NULL REFERENCES vk_tenants(name),
        vault text,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );`,
  },
  {
    id: 2,
    name: 'LLM usage per tenant and day, the shared rate budget',
    sql: `
      CREATE TABLE vk_llm_usage (
        tenant text NOT NULL REFERENCES vk_tenants(name),
        day date NOT NULL,
        calls bigint NOT NULL DEFAULT 0,
        prompt_tokens bigint NOT NULL DEFAULT 0,
        completion_tokens bigint NOT NULL DEFAULT 0,
        total_tokens bigint NOT NULL DEFAULT 0,
        cost double precision NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, day)
      );
      CREATE TABLE vk_llm_rate (
        minute timestamptz PRIMARY KEY,
        calls integer NOT NULL
      );`,
  },
];

const LOCK_KEY = 2_028_001;

/** Applies the migrations not yet applied; returns their ids. */
export async function migrate(db: Db): Promise<number[]> {
  return inTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await client.query('CREATE TABLE IF NOT EXISTS vk_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ id: number }>('SELECT id FROM vk_migrations');
    const done = new Set(rows.map((r) => r.id));
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.id)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO vk_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
      applied.push(migration.id);
    }
    return applied;
  });
}
