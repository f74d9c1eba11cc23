/**
 * A server token sent back in as memory ("remember my token vk_…") is taken out of every request body before any
 * step sees it: it must never land in a vault. Other secrets are the vault's own redaction's job (secrets/).
 */
const TOKEN = /vk_[0-9a-f]{12}_[A-Za-z0-9_-]{20,}/g;
export const TOKEN_REMOVED = '[vaultkeeper token removed]';

export function scrubTokens<T>(value: T): T {
  if (typeof value === 'string') return value.replace(TOKEN, TOKEN_REMOVED) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => scrubTokens(v)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, scrubTokens(v)])) as T;
  }
  return value;
}
