/** Tenants, their vaults and their tokens, in Postgres (migrations.ts). */
import { VaultkeeperError } from '../core/errors.js';
import type { Db } from './db.js';
import { hashToken, newToken, type Scope } from './tokens.js';

/** A tenant's or a vault's name: it is a path segment on disk and in URLs. */
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function checkName(kind: 'tenant' | 'vault', name: string): string {
  if (!NAME.test(name)) {
    throw new VaultkeeperError('VK_USAGE', `'${name}' is not a valid ${kind} name: lower-case letters, digits, - and _, at most 63, starting with a letter or digit`, { exitCode: 2 });
  }
  return name;
}

export interface VaultRow {
  id: string;
  tenant: string;
  name: string;
}

export interface Principal {
  tokenId: string;
  tenant: string;
  /** The one vault the token opens, or null: every vault of its tenant. */
  vault: string | null;
  scopes: string[];
}

export async function createVaultRow(db: Db, tenant: string, name: string): Promise<{ row: VaultRow; created: boolean }> {
  checkName('tenant', tenant);
  checkName('vault', name);
  await db.query('INSERT INTO vk_tenants (name) VALUES ($1) ON CONFLICT DO NOTHING', [tenant]);
  const inserted = await db.query<VaultRow>('INSERT INTO vk_vaults (tenant, name) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id::text, tenant, name', [tenant, name]);
  if (inserted.rows[0] !== undefined) return { row: inserted.rows[0], created: true };
  return { row: (await findVault(db, tenant, name))!, created: false };
}

export async function findVault(db: Db, tenant: string, name: string): Promise<VaultRow | null> {
  const { rows } = await db.query<VaultRow>('SELECT id::text, tenant, name FROM vk_vaults WHERE tenant = $1 AND name = $2', [tenant, name]);
  return rows[0] ?? null;
}

export async function vaultById(db: Db, id: string): Promise<VaultRow | null> {
  const { rows } = await db.query<VaultRow>('SELECT id::text, tenant, name FROM vk_vaults WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function listVaults(db: Db, tenant?: string): Promise<VaultRow[]> {
  const { rows } = await db.query<VaultRow>(
    `SELECT id::text, tenant, name FROM vk_vaults ${tenant === undefined ? '' : 'WHERE tenant = $1'} ORDER BY tenant, name`,
    tenant === undefined ? [] : [tenant],
  );
  return rows;
}

export async function createToken(db: Db, tenant: string, vault: string | null, scopes: readonly Scope[]): Promise<{ id: string; token: string }> {
  checkName('tenant', tenant);
  const known = await db.query('SELECT 1 FROM vk_tenants WHERE name = $1', [tenant]);
  if (known.rowCount === 0) throw new VaultkeeperError('VK_NOT_FOUND', `no tenant named '${tenant}'`, { hint: `create a vault first: vaultkeeper server vault create NAME --tenant ${tenant}` });
  if (vault !== null && (await findVault(db, tenant, vault)) === null) {
    throw new VaultkeeperError('VK_NOT_FOUND', `tenant '${tenant}' has no vault named '${vault}'`, { hint: `vaultkeeper server vault create ${vault} --tenant ${tenant}` });
  }
  const { id, token, hash } = newToken();
  await db.query('INSERT INTO vk_tokens (id, hash, tenant, vault, scopes) VALUES ($1, $2, $3, $4, $5)', [id, hash, tenant, vault, scopes]);
  return { id, token };
}

/** Revokes by id or by the token itself; returns the id, or null when no live token matched. */
export async function revokeToken(db: Db, idOrToken: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    'UPDATE vk_tokens SET revoked_at = now() WHERE (id = $1 OR hash = $2) AND revoked_at IS NULL RETURNING id',
    [idOrToken, hashToken(idOrToken)],
  );
  return rows[0]?.id ?? null;
}

export async function authenticate(db: Db, token: string): Promise<Principal | null> {
  const { rows } = await db.query<{ id: string; tenant: string; vault: string | null; scopes: string[] }>(
    'SELECT id, tenant, vault, scopes FROM vk_tokens WHERE hash = $1 AND revoked_at IS NULL',
    [hashToken(token)],
  );
  const row = rows[0];
  return row === undefined ? null : { tokenId: row.id, tenant: row.tenant, vault: row.vault, scopes: row.scopes };
}
