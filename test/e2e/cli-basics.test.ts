/**
 * The command line contract (DESIGN §10) through the built CLI: help, version, exit codes with one line
 * on stderr, stack traces only with --debug, and how the vault is found.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { commitSubjects, expectOneLineError, initVault, snapshot } from '../helpers/vault.js';

const tempDir = useTempDir();
const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

interface RememberJson {
  facts: { id: string; date: string; path: string; line: number }[];
}

describe('help and version', () => {
  it('--help lists the commands and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: vaultkeeper/);
    for (const command of ['init', 'remember', 'forget', 'history', 'doctor', 'demo']) expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    for (const option of ['--vault', '--debug', '--version']) expect(result.stdout).toContain(option);
  });

  it('a command\'s --help shows its options', async () => {
    const result = await runCli(['remember', '--help']);
    expect(result.code).toBe(0);
    for (const option of ['--category', '--tag', '--source', '--date', '--stdin', '--json']) expect(result.stdout).toContain(option);
  });

  it('builds only the named command, and every command when the name is a typo, so usage errors read as before', async () => {
    // A typo: all commands are built, so commander can name the nearest.
    const typo = await runCli(['--debug', 'serch', 'coffee']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^vaultkeeper: unknown command 'serch' \(Did you mean search\?\)\n$/);
    // Global options (one with a value) before the command: its own usage error, its own option suggestions.
    const dir = await tempDir();
    const missing = await runCli(['--vault', dir, '--debug', 'search']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("vaultkeeper: missing required argument 'query'\n");
    const option = await runCli([`--vault=${dir}`, 'search', 'coffee', '--kin', 'fact']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/unknown option '--kin' \(Did you mean --kind\?\)/);
    // `help search` and a subcommand group's help name what they did.
    expect((await runCli(['help', 'search'])).stdout).toMatch(/^Usage: vaultkeeper search \[options\] <query\.\.\.>/);
    expect((await runCli(['daemon', '--help'])).stdout).toMatch(/^ {2}start\b[\s\S]*^ {2}log\b/m);
  });

  it('--version prints the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag]);
      expect(result).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    }
  });
});

describe('usage errors exit 2 with one line on stderr', () => {
  it.each([
    ['an unknown option', ['remember', 'x', '--bogus'], /unknown option '--bogus'/],
    ['a mistyped option, with the suggestion on the same line', ['remember', 'x', '--sourc', 'a'], /unknown option '--sourc'.*--source/],
    ['an unknown command', ['bogus'], /unknown command 'bogus'/],
    ['a mistyped command, with the suggestion on the same line', ['remembr', 'x'], /unknown command 'remembr'.*remember/],
    ['an option without its value', ['remember', 'x', '--date'], /--date/],
    ['forget with both an id and --match', ['forget', 'f-0123456789', '--match', 'coffee'], /not both/],
    ['forget with neither', ['forget'], /fact id or --match/],
    ['a --limit of 0', ['history', '-n', '0'], /positive whole number/],
    ['a --limit that is not a number', ['history', '--limit', 'ten'], /positive whole number/],
  ])('%s', async (_name, args, pattern) => {
    expectOneLineError(await runCli(args, { cwd: await tempDir() }), 2, pattern);
  });

  it.each([
    ['a bad category', ['remember', 'x', '-c', 'mood'], /unknown category 'mood'.*preference/],
    ['an impossible date', ['remember', 'x', '--date', '2026-02-30'], /invalid date '2026-02-30'.*YYYY-MM-DD/],
    ['a date in another format', ['remember', 'x', '--date', '09/06/2026'], /invalid date/],
    ['an invalid tag', ['remember', 'x', '-t', 'two words'], /invalid tag/],
    ['no text to remember', ['remember'], /needs the fact/],
    ['text and --stdin at once', ['remember', 'x', '--stdin'], /not both/],
  ])('%s, writing nothing', async (_name, args, pattern) => {
    const root = await initVault(await tempDir());
    const before = await snapshot(root, { includeGit: true });
    expectOneLineError(await runCli(args, { cwd: root }), 2, pattern);
    expect(await snapshot(root, { includeGit: true })).toEqual(before);
  });
});

describe('runtime errors exit 1 with one line naming what to do', () => {
  it('no vault found', async () => {
    const dir = await tempDir();
    const result = await runCli(['remember', 'x'], { cwd: dir });
    expectOneLineError(result, 1, /no vault here.*--vault PATH.*VAULTKEEPER_VAULT.*vaultkeeper init/);
  });

  it('--vault pointing at a folder that is not a vault', async () => {
    const dir = await tempDir();
    expectOneLineError(await runCli(['--vault', dir, 'history']), 1, new RegExp(`not a vaultkeeper vault: ${dir} \\(from --vault\\).*vaultkeeper init`));
  });

  it('VAULTKEEPER_VAULT pointing at a folder that is not a vault', async () => {
    const dir = await tempDir();
    expectOneLineError(await runCli(['history'], { env: { VAULTKEEPER_VAULT: dir } }), 1, /\(from VAULTKEEPER_VAULT\)/);
  });

  it('an id that matches nothing', async () => {
    const root = await initVault(await tempDir());
    expectOneLineError(await runCli(['forget', 'f-0000000000'], { cwd: root }), 1, /no fact with id f-0000000000.*nothing was changed/);
  });

  it('prints a stack trace only with --debug', async () => {
    const root = await initVault(await tempDir());
    const plain = await runCli(['forget', 'f-0000000000'], { cwd: root });
    expect(plain.stderr).not.toMatch(/^\s+at /m);
    const debug = await runCli(['--debug', 'forget', 'f-0000000000'], { cwd: root });
    expect(debug.code).toBe(1);
    expect(debug.stdout).toBe('');
    expect(debug.stderr.split('\n')[0]).toBe(plain.stderr.trimEnd());
    expect(debug.stderr).toMatch(/^\s+at /m);
  });
});

describe('finding the vault', () => {
  it('by --vault, relative to the working folder', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    const result = await runJson<RememberJson>(['--vault', 'vault', 'remember', 'Found by --vault', '--date', '2026-06-09'], { cwd: dir });
    expect(result.facts[0]!.path).toBe('logs/2026-06-09.md');
    expect(await readFile(path.join(root, 'logs/2026-06-09.md'), 'utf8')).toContain('Found by --vault');
  });

  it('by VAULTKEEPER_VAULT', async () => {
    const dir = await tempDir();
    const root = await initVault(dir);
    await runJson(['remember', 'Found by the environment', '--date', '2026-06-09'], { cwd: dir, env: { VAULTKEEPER_VAULT: root } });
    expect(await readFile(path.join(root, 'logs/2026-06-09.md'), 'utf8')).toContain('Found by the environment');
  });

  it('by the nearest enclosing vault, from a subfolder', async () => {
    const root = await initVault(await tempDir());
    const deep = path.join(root, '2_Areas', 'coffee', 'notes');
    await mkdir(deep, { recursive: true });
    await runJson(['remember', 'Found from a subfolder', '--date', '2026-06-09'], { cwd: deep });
    expect(await readFile(path.join(root, 'logs/2026-06-09.md'), 'utf8')).toContain('Found from a subfolder');
    expect(await commitSubjects(root)).toHaveLength(2);
  });

  it('--vault wins over VAULTKEEPER_VAULT, which wins over the enclosing folder', async () => {
    const a = await initVault(await tempDir());
    const b = await initVault(await tempDir());
    const c = await initVault(await tempDir());
    await runJson(['--vault', a, 'remember', 'to a', '--date', '2026-06-09'], { cwd: c, env: { VAULTKEEPER_VAULT: b } });
    await runJson(['remember', 'to b', '--date', '2026-06-09'], { cwd: c, env: { VAULTKEEPER_VAULT: b } });
    await runJson(['remember', 'to c', '--date', '2026-06-09'], { cwd: c });
    for (const [root, text] of [[a, 'to a'], [b, 'to b'], [c, 'to c']] as const) {
      const log = await readFile(path.join(root, 'logs/2026-06-09.md'), 'utf8');
      expect(log.match(/^- \[fact\] (.*?) \^/gm)).toEqual([`- [fact] ${text} ^`]);
    }
  });
});
