/**
 * The smaller failures of issue 13, through the built CLI: each ends with one clear line on stderr (or,
 * for a closed stdout, quietly), never "unexpected error" or a stack trace.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { promoteMemory } from '../../src/daemon/jobs/promote.js';
import { parseLog } from '../../src/logs/factlog.js';
import { openVault } from '../../src/vault/vault.js';
import { CLI, runCli } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const execFileAsync = promisify(execFile);
const env = { VAULTKEEPER_TIMEZONE: 'UTC' };

describe('small failures end in one clear line', () => {
  it('init where no folder can be made fails at once', async () => {
    expectOneLineError(await runCli(['init', '/proc/vaultkeeper-test/x'], { env }), 1, /cannot create the folder/);
  });

  it('a folder at logs/DATE.md is named, for writes and reads', async () => {
    const root = await initVault(await tempDir(), { env });
    await mkdir(path.join(root, 'logs/2026-01-05.md'));
    expectOneLineError(await runCli(['--vault', root, 'remember', 'hi', '--date', '2026-01-05'], { env }), 1, /logs\/2026-01-05\.md is a folder/);
    expectOneLineError(await runCli(['--vault', root, 'status'], { env }), 1, /logs\/2026-01-05\.md is a folder/);
  });

  it('a stray file at the write lock is named with the fix', async () => {
    const root = await initVault(await tempDir(), { env });
    await rm(path.join(root, '.vaultkeeper/locks'), { recursive: true, force: true });
    await mkdir(path.join(root, '.vaultkeeper/locks'));
    await writeFile(path.join(root, '.vaultkeeper/locks/write.lock'), 'junk');
    expectOneLineError(await runCli(['--vault', root, 'remember', 'hi'], { env }), 1, /write\.lock is a file.*remove/);
  });

  it('a stale .git/index.lock: the fact is stored once, reported with the fix, and committed by the next write', async () => {
    const root = await initVault(await tempDir(), { env });
    await writeFile(path.join(root, '.git/index.lock'), '');
    const stored = await runCli(['--vault', root, 'remember', 'kept despite the lock', '--date', '2026-01-05', '--json'], { env });
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stderr).toMatch(/^vaultkeeper: warning: stored in logs\/2026-01-05\.md but not committed \(a stale \.git\/index\.lock .*rm '/);
    expect(stored.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect((JSON.parse(stored.stdout) as { commit: string | null }).commit).toBeNull();
    await rm(path.join(root, '.git/index.lock'));
    expect((await runCli(['--vault', root, 'remember', 'the next one', '--date', '2026-01-05'], { env })).code).toBe(0);
    const log = parseLog(await readFile(path.join(root, 'logs/2026-01-05.md')), '2026-01-05');
    expect(log.facts.map((f) => f.text)).toEqual(['kept despite the lock', 'the next one']);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('a reader that closes the pipe ends the command quietly', async () => {
    const { stdout, stderr } = await execFileAsync('bash', ['-c', `node '${CLI}' completion bash | head -c 10 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`]);
    expect(stdout.trim()).toBe('exit=0');
    expect(stderr).toBe('');
  });
});

describe('the smaller leftovers', () => {
  it("a fresh vault's MEMORY.md is byte for byte what the program regenerates: the daemon's first promote commits nothing", async () => {
    const root = await initVault(await tempDir(), { env });
    const before = await readFile(path.join(root, 'MEMORY.md'));
    const vault = await openVault({ vault: root, env: { ...process.env, ...env } });
    expect(await promoteMemory(vault)).toEqual({ changed: false, commit: null });
    expect(await readFile(path.join(root, 'MEMORY.md'))).toEqual(before);
    expect((await execFileAsync('git', ['log', '--format=%s'], { cwd: root })).stdout.trim()).toBe('init: new vaultkeeper vault');
    expect(await gitStatus(root)).toEqual([]);

    // The same for a folder of notes that init --adopt takes in.
    const notes = path.join(await tempDir(), 'notes');
    await mkdir(path.join(notes, 'Ideas'), { recursive: true });
    await writeFile(path.join(notes, 'Ideas/Coffee.md'), '# Coffee\n\n## Current\n\n- brewing method:: AeroPress\n');
    const adopted = await runCli(['init', notes, '--adopt'], { env });
    expect(adopted.code, adopted.stderr).toBe(0);
    const adoptedMemory = await readFile(path.join(notes, 'MEMORY.md'), 'utf8');
    expect(adoptedMemory).toContain('- brewing method:: AeroPress — [[Coffee]]');
    expect(await promoteMemory(await openVault({ vault: notes, env: { ...process.env, ...env } }))).toEqual({ changed: false, commit: null });
    expect(await readFile(path.join(notes, 'MEMORY.md'), 'utf8')).toBe(adoptedMemory);
  });

  it('status does not name an undone run as the last ok one', async () => {
    const root = await initVault(await tempDir(), { env });
    expect((await runCli(['--vault', root, 'remember', 'Plays the cello every Sunday', '--date', '2025-06-01'], { env })).code).toBe(0);
    const dreamt = JSON.parse((await runCli(['--vault', root, 'dream', '--force', '--offline', '--json'], { env })).stdout) as { status: string; run: string };
    expect(dreamt.status).toBe('ok');
    const ok = JSON.parse((await runCli(['--vault', root, 'status', '--json'], { env })).stdout) as { dream: { last_status: string; last_run: string } };
    expect(ok.dream).toMatchObject({ last_status: 'ok', last_run: dreamt.run });

    expect((await runCli(['--vault', root, 'undo', dreamt.run], { env })).code).toBe(0);
    const after = await runCli(['--vault', root, 'status', '--json'], { env });
    expect((JSON.parse(after.stdout) as { dream: { last_status: string } }).dream.last_status).toBe('undone');
    const text = await runCli(['--vault', root, 'status'], { env });
    expect(text.stdout).toMatch(new RegExp(`^dream {6}last undone \\(${dreamt.run}\\)$`, 'm'));
    expect(text.stdout).not.toMatch(/last ok/);
  });
});
