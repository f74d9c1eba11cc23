/**
 * The validated config kept in .vaultkeeper/cache/config.json: used while the config's text (and the
 * validator) is unchanged, replaced when the text changes, the same errors as without it, and never read or
 * written while an environment override applies (an override may carry credentials).
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_CACHE_FILE, loadConfigCached } from '../../src/core/config-cache.js';
import { CONFIG_FILE, loadConfig } from '../../src/core/config.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

async function vaultWith(config: string): Promise<string> {
  const root = await tempDir();
  await mkdir(path.join(root, '.vaultkeeper'), { recursive: true });
  await writeFile(path.join(root, CONFIG_FILE), config);
  return root;
}

describe('the config cache', () => {
  it('answers from the cache while the text holds, and validates again when it changes', async () => {
    const root = await vaultWith('timezone: UTC\n');
    const first = await loadConfigCached(root, {});
    expect(first).toEqual(await loadConfig(root, {}));
    const cache = path.join(root, CONFIG_CACHE_FILE);
    const written = await stat(cache);
    expect(await loadConfigCached(root, {})).toEqual(first);
    expect((await stat(cache)).mtimeMs).toBe(written.mtimeMs);

    await writeFile(path.join(root, CONFIG_FILE), 'timezone: Europe/Lisbon\n');
    expect((await loadConfigCached(root, {})).timezone).toBe('Europe/Lisbon');
    expect(JSON.parse(await readFile(cache, 'utf8')).config.timezone).toBe('Europe/Lisbon');

    // A cache whose key no longer matches (another text) is never trusted, even if someone edited its config.
    const forged = JSON.parse(await readFile(cache, 'utf8'));
    await writeFile(cache, JSON.stringify({ key: 'forged', config: { ...forged.config, timezone: 'Asia/Tokyo' } }));
    expect((await loadConfigCached(root, {})).timezone).toBe('Europe/Lisbon');
  });

  it('gives the one-line error of the validator for a bad config, cached or not', async () => {
    const root = await vaultWith('timezone: UTC\n');
    await loadConfigCached(root, {});
    await writeFile(path.join(root, CONFIG_FILE), 'dream:\n  min_hours: soon\n');
    const direct = await loadConfig(root, {}).then(() => null, (error: Error) => error.message);
    expect(direct).not.toBeNull();
    await expect(loadConfigCached(root, {})).rejects.toThrow(direct!);
  });

  it('neither reads nor writes the cache while an environment override applies', async () => {
    const root = await vaultWith('timezone: UTC\n');
    const env = { VAULTKEEPER_LLM_BASE_URL: 'http://user:s3cret-in-url@127.0.0.1:9/v1' };
    const config = await loadConfigCached(root, env);
    expect(config.llm.base_url).toBe(env.VAULTKEEPER_LLM_BASE_URL);
    await expect(stat(path.join(root, CONFIG_CACHE_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
    await loadConfigCached(root, {});
    expect(await readFile(path.join(root, CONFIG_CACHE_FILE), 'utf8')).not.toContain('s3cret');
    expect((await loadConfigCached(root, env)).llm.base_url).toBe(env.VAULTKEEPER_LLM_BASE_URL);
  });
});
