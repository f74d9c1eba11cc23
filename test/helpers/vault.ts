/** Real vaults for end-to-end tests: made by the built CLI, inspected with real git. */
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { CONFIG_CACHE_FILE } from '../../src/core/config-cache.js';
import { runCli, type CliOptions, type CliResult } from './cli.js';
import { writeTree } from './tmp.js';

const execFileAsync = promisify(execFile);

/** Runs git in `cwd` and returns its stdout; throws (with stderr) on a non-zero exit. */
export async function git(cwd: string, args: readonly string[], env?: Record<string, string | undefined>): Promise<string> {
  const { stdout } = await execFileAsync('git', [...args], {
    cwd,
    env: { ...process.env, ...env } as NodeJS.ProcessEnv,
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/** `git status --porcelain` lines, untracked files included. */
export async function gitStatus(cwd: string): Promise<string[]> {
  return (await git(cwd, ['status', '--porcelain=v1', '--untracked-files=all'])).split('\n').filter((l) => l !== '');
}

/** Subjects of the commits, newest first. */
export async function commitSubjects(cwd: string): Promise<string[]> {
  return (await git(cwd, ['log', '--format=%s'])).split('\n').filter((l) => l !== '');
}

/** Creates a vault in `<dir>/vault` with `vaultkeeper init` and returns its path. */
export async function initVault(dir: string, options: CliOptions = {}): Promise<string> {
  const root = path.join(dir, 'vault');
  const result = await runCli(['init', root], options);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return root;
}

/**
 * A vault in a fresh folder of `dir()` with the given files (logs, pages) and `.vaultkeeper/config.yaml` (UTC,
 * full-text search only, then `config`), committed by a person ("Ana", no vaultkeeper trailer): the dream tests' start.
 */
export async function makeLoggedVault(dir: () => Promise<string>, files: Record<string, string>, config = ''): Promise<string> {
  const root = await initVault(await dir());
  await writeTree(root, { ...files, '.vaultkeeper/config.yaml': `timezone: UTC\nindex:\n  embedder: none\n${config}` });
  await commitAsPerson(root, 'logs');
  return root;
}

/** Commits everything in `root` as a person would (no vaultkeeper trailer), with `message`. */
export async function commitAsPerson(root: string, message: string): Promise<void> {
  await git(root, ['add', '--all']);
  await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', message]);
}

/** Asserts an error exit: exactly one line on stderr, starting `vaultkeeper: `, and nothing on stdout. */
export function expectOneLineError(result: CliResult, code: 1 | 2, pattern?: RegExp): void {
  expect(result.code, `stderr: ${result.stderr}`).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n'), 'the error ends with a newline').toBe(true);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, 'exactly one line on stderr').toHaveLength(1);
  expect(lines[0]).toMatch(/^vaultkeeper: /);
  if (pattern !== undefined) expect(lines[0]).toMatch(pattern);
}

/** Every file under root (relative paths, sorted); .git only when asked. */
export async function listFiles(root: string, options: { includeGit?: boolean } = {}): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .filter((rel) => options.includeGit === true || !rel.split(path.sep).includes('.git'))
    // The validated config's cache, which any command reading the config may write (docs/configuration.md): not vault content.
    .filter((rel) => rel.split(path.sep).join('/') !== CONFIG_CACHE_FILE)
    .sort();
}

/** Path → base64 content of every file under root, for before/after comparisons. */
export async function snapshot(root: string, options: { includeGit?: boolean } = {}): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const rel of await listFiles(root, options)) out.set(rel, (await readFile(path.join(root, rel))).toString('base64'));
  return out;
}

/** An environment in which git knows no identity: empty HOME, no system or XDG config. */
export function noGitIdentityEnv(home: string): Record<string, string | undefined> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: undefined,
    GIT_AUTHOR_NAME: undefined,
    GIT_AUTHOR_EMAIL: undefined,
    GIT_COMMITTER_NAME: undefined,
    GIT_COMMITTER_EMAIL: undefined,
    EMAIL: undefined,
  };
}
