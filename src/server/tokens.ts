/**
 * Bearer tokens: `vk_<id>_<secret>`, 32 random bytes of secret. Only the SHA-256 of the whole token is stored (a
 * high-entropy secret needs no slow hash); the id is public, to name the token in `token revoke` and in logs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { VaultkeeperError } from '../core/errors.js';

export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export interface NewToken {
  id: string;
  token: string;
  hash: string;
}

export function newToken(): NewToken {
  const id = randomBytes(6).toString('hex');
  const token = `vk_${id}_${randomBytes(32).toString('base64url')}`;
  return { id, token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The token in an Authorization header, or null. */
export function bearer(header: string | undefined): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? null;
}

export function parseScopes(text: string): Scope[] {
  const scopes = [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new VaultkeeperError('VK_USAGE', `scopes are a comma-separated list of ${SCOPES.join(', ')}${unknown.length ? `, not ${unknown.join(', ')}` : ''}`, { exitCode: 2, hint: 'e.g. --scope read,write' });
  }
  return scopes as Scope[];
}

/** write implies read, admin implies both. */
export function grants(scopes: readonly string[], need: Scope): boolean {
  if (scopes.includes('admin')) return true;
  if (need === 'read') return scopes.includes('read') || scopes.includes('write');
  return scopes.includes(need);
}
