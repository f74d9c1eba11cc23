/**
 * The bearer token `mcp --http` requires on every request (issue 29): from an environment variable the person
 * names (--token-env), else one generated once and kept outside every vault, in the user's vaultkeeper folder
 * (mode 0600), so it never lands in a vault or its git history.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { VaultkeeperError } from '../core/errors.js';
import { userConfigDir } from '../core/vault-registry.js';

/** A token shorter than this is refused: it could be guessed. */
export const MIN_TOKEN_CHARS = 16;

export interface ServerToken {
  token: string;
  /** Where it came from: the named variable, or the file it was generated into. */
  from: { env: string } | { file: string; created: boolean };
}

type Env = Readonly<Record<string, string | undefined>>;

export function tokenFile(env: Env = process.env): string {
  return path.join(userConfigDir(env), 'mcp-token');
}

export async function resolveToken(tokenEnv: string | undefined, env: Env = process.env): Promise<ServerToken> {
  if (tokenEnv !== undefined) {
    const token = env[tokenEnv]?.trim() ?? '';
    if (token === '') throw new VaultkeeperError('VK_USAGE', `--token-env names ${tokenEnv}, which is not set`, { exitCode: 2, hint: `export ${tokenEnv}=<a long random token>, e.g. from: openssl rand -base64 32` });
    if (token.length < MIN_TOKEN_CHARS) throw new VaultkeeperError('VK_USAGE', `the token in ${tokenEnv} is under ${MIN_TOKEN_CHARS} characters`, { exitCode: 2, hint: 'use a long random one, e.g. from: openssl rand -base64 32' });
    return { token, from: { env: tokenEnv } };
  }
  const file = tokenFile(env);
  try {
    const token = (await readFile(file, 'utf8')).trim();
    if (token.length >= MIN_TOKEN_CHARS) return { token, from: { file, created: false } };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(32).toString('base64url');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return { token, from: { file, created: true } };
}

/** A comparison that takes the same time however much of the token matches. */
export function tokenMatches(expected: string, header: string | undefined): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (given === undefined) return false;
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(expected), digest(given));
}
