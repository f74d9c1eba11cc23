/**
 * A held lock whose folder goes missing must not kill its holder. proper-lockfile checks its lock folder
 * every 5 s and, by default, throws from that timer when the folder is gone — also when the holder itself
 * released the lock while the check's stat was in flight (a dream crashed so in CI under load). Its own
 * release is ignored; a folder removed while held is remembered, and the release then leaves alone the lock
 * and owner record of whoever holds it next.
 */
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/core/lock.js';
import { runCli } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';

const LOCK_MODULE = fileURLToPath(new URL('../../dist/core/lock.js', import.meta.url));
const LOCKS = '.vaultkeeper/locks';

/** Holds back every callback-style stat of a `*.lock` path by 400 ms: proper-lockfile's check then sees the folder as it is after the release. */
const SLOW_STAT = `
const fs = require('node:fs');
const stat = fs.stat;
fs.stat = function (file, ...rest) {
  if (String(file).endsWith('.lock')) return void setTimeout(() => stat.call(fs, file, ...rest), 400);
  return stat.call(fs, file, ...rest);
};
`;

const HOLDER = `
const { acquireLock } = await import(process.argv[2]);
const root = process.argv[3];
const release = await acquireLock(root, 'write');
// proper-lockfile's check fires at 5,000 ms; its stat is held back, and the release lands inside it.
await new Promise((resolve) => setTimeout(resolve, 5_100));
await release();
await new Promise((resolve) => setTimeout(resolve, 800));
console.log('released');
`;

const exists = (file: string): Promise<boolean> => access(file).then(() => true, () => false);

describe('a lock folder gone while held', () => {
  const tempDir = useTempDir();

  it('a release made while the lock check is in flight does not kill the holder', async () => {
    const root = await tempDir();
    const preload = path.join(root, 'slow-stat.cjs');
    const holder = path.join(root, 'holder.mjs');
    await writeFile(preload, SLOW_STAT);
    await writeFile(holder, HOLDER);
    await mkdir(path.join(root, LOCKS), { recursive: true });
    const result = await runCli([pathToFileURL(LOCK_MODULE).href, root], { script: holder, env: { NODE_OPTIONS: `--require ${preload}` } });
    expect(result.stderr).not.toContain('ECOMPROMISED');
    expect(result).toMatchObject({ code: 0, stdout: 'released\n' });
    expect(await exists(path.join(root, LOCKS, 'write.lock'))).toBe(false);
    expect(await exists(path.join(root, LOCKS, 'write.owner'))).toBe(false);
  }, 30_000);

  it('a folder removed by hand while held: the holder lives on, and its release leaves the next holder\'s lock and record alone', async () => {
    const root = await tempDir();
    const first = await acquireLock(root, 'write');
    await rm(path.join(root, LOCKS, 'write.lock'), { recursive: true });
    await rm(path.join(root, LOCKS, 'write.owner'));
    // Past proper-lockfile's 5 s check, which finds the folder gone (by default a throw that kills the process).
    await new Promise((resolve) => setTimeout(resolve, 5_600));
    const second = await acquireLock(root, 'write', { waitMs: 1_000 });
    const record = await readFile(path.join(root, LOCKS, 'write.owner'), 'utf8');
    await first();
    expect(await exists(path.join(root, LOCKS, 'write.lock'))).toBe(true);
    expect(await readFile(path.join(root, LOCKS, 'write.owner'), 'utf8')).toBe(record);
    await second();
    expect(await exists(path.join(root, LOCKS, 'write.lock'))).toBe(false);
  }, 30_000);
});
