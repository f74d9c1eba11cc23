/**
 * commitPaths (src/git/audit.ts) with a message longer than one argument may be: a dream run that changed
 * thousands of files lists each in its message, and `git commit -m <message>` failed with spawn E2BIG.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/core/config.js';
import { withWriteLock } from '../../src/core/lock.js';
import { commitPaths } from '../../src/git/audit.js';

describe('commitPaths with a long message', () => {
  it('commits a message past 128 KB as written (E2BIG before), and a short one as before', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'vk-commit-long-'));
    try {
      const git = (...args: string[]): string => execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { encoding: 'utf8' });
      git('init', '-q');
      const config = parseConfigText('', 'config.yaml');
      const names = Array.from({ length: 3000 }, (_, i) => `Project Atlas — Work 2024-01-${String(i).padStart(4, '0')}.md`);
      await writeFile(path.join(root, 'a.md'), 'a\n');
      const body = names.map((n) => `+ 1_Projects/${n}`).join('\n');
      expect(Buffer.byteLength(body)).toBeGreaterThan(128 * 1024);
      const sha = await withWriteLock(root, (lock) => commitPaths(lock, config, { op: 'dream', subject: 'dream: a long run', body, paths: ['a.md'] }));
      expect(sha).toMatch(/^[0-9a-f]{40}$/);
      const message = git('log', '-1', '--format=%B');
      expect(message.startsWith('dream: a long run\n\n+ 1_Projects/Project Atlas — Work 2024-01-0000.md\n')).toBe(true);
      expect(message).toContain(`+ 1_Projects/${names.at(-1)!}\n`);
      expect(message).toContain('Vaultkeeper-Op: dream');
      await writeFile(path.join(root, 'b.md'), 'b\n');
      await withWriteLock(root, (lock) => commitPaths(lock, config, { op: 'remember', subject: 'remember: one fact', paths: ['b.md'] }));
      expect(git('log', '-1', '--format=%B')).toBe('remember: one fact\n\nVaultkeeper-Op: remember\n\n');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
