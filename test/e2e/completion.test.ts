/**
 * `vaultkeeper completion bash|zsh|fish`: the bash script is loaded into a real bash and asked for
 * completions the way bash's `complete` machinery asks (COMP_WORDS, COMP_CWORD, then the function).
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';

const run = promisify(execFile);
const tempDir = useTempDir();

describe('vaultkeeper completion', () => {
  let script = '';
  beforeAll(async () => {
    const result = await runCli(['completion', 'bash']);
    expect(result.code).toBe(0);
    script = result.stdout;
  });

  /** What bash offers for the words typed so far (the last one is the word under the cursor). */
  async function complete(typed: string[], cwd?: string): Promise<string[]> {
    const dir = cwd ?? (await tempDir());
    const file = path.join(dir, '.completion.bash');
    await writeFile(file, script);
    const words = ['vaultkeeper', ...typed].map((w) => `'${w}'`).join(' ');
    const body = `source '${file}'\ncomplete -p vaultkeeper >/dev/null || exit 3\nCOMP_WORDS=(${words}); COMP_CWORD=${typed.length}; COMP_LINE="\${COMP_WORDS[*]}"; COMP_POINT=\${#COMP_LINE}\n_vaultkeeper\nprintf '%s\\n' "\${COMPREPLY[@]}"`;
    const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', body], { cwd: dir });
    return stdout.split('\n').filter(Boolean).sort();
  }

  it('offers every command, then a command\'s subcommands and options', async () => {
    const help = await runCli(['--help']);
    const commands = [...help.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands).toContain('daemon');
    expect(await complete([''])).toEqual([...commands].sort());
    expect(await complete(['dae'])).toEqual(['daemon']);
    expect(await complete(['daemon', ''])).toEqual(['log', 'start', 'status', 'stop']);
    expect(await complete(['daemon', 'log', '--'])).toEqual(expect.arrayContaining(['--tail', '--job', '--follow', '--json', '--vault']));
    expect(await complete(['--vault', '/tmp', 'search', '--ar'])).toEqual(['--archived']);
    expect(await complete(['doctor', '--f'])).toEqual(['--fix']);
    expect(await complete(['completion', ''])).toEqual(['bash', 'fish', 'zsh']);
  });

  it('completes --vault with folders only, and arguments with files', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'memory-vault'));
    await writeFile(path.join(dir, 'memory-notes.txt'), 'x');
    expect(await complete(['--vault', 'mem'], dir)).toEqual(['memory-vault']);
    expect(await complete(['ingest', 'mem'], dir)).toEqual(['memory-notes.txt', 'memory-vault']);
  });

  it('prints zsh and fish scripts from the same command tree, and refuses another shell', async () => {
    const zsh = await runCli(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef vaultkeeper\nautoload -U \+X bashcompinit && bashcompinit\n/);
    expect(zsh.stdout).toContain(script);
    const fish = (await runCli(['completion', 'fish'])).stdout;
    expect(fish).toContain(`complete -c vaultkeeper -n '__fish_use_subcommand' -a daemon -d`);
    expect(fish).toContain(`complete -c vaultkeeper -n '__fish_seen_subcommand_from daemon; and not __fish_seen_subcommand_from start stop status log' -a log`);
    expect(fish).toContain(`complete -c vaultkeeper -n '__fish_seen_subcommand_from doctor' -l fix -d`);
    const bad = await runCli(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^vaultkeeper: .*'tcsh'.*bash, zsh, fish\.?\n$/);
  });

  // fish and zsh are not on every machine (Debian: apt-get install fish zsh); each case says so when absent.
  const has = (shell: string): Promise<boolean> => run(shell, ['--version']).then(() => true, () => false);

  it('fish offers commands, subcommands and options through its own completion engine', async (ctx) => {
    if (!(await has('fish'))) ctx.skip('fish is not installed here');
    const dir = await tempDir();
    const file = path.join(dir, 'vaultkeeper.fish');
    await writeFile(file, (await runCli(['completion', 'fish'])).stdout);
    const ask = async (line: string): Promise<string[]> => {
      const { stdout } = await run('fish', ['--no-config', '-c', `source '${file}'; complete -C '${line}'`]);
      return stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort();
    };
    expect(await ask('vaultkeeper dae')).toEqual(['daemon']);
    expect(await ask('vaultkeeper daemon ')).toEqual(['log', 'start', 'status', 'stop']);
    expect(await ask('vaultkeeper doctor --f')).toEqual(['--fix']);
  });

  it('zsh loads the script and registers it for vaultkeeper', async (ctx) => {
    if (!(await has('zsh'))) ctx.skip('zsh is not installed here');
    const dir = await tempDir();
    const file = path.join(dir, '_vaultkeeper.zsh');
    await writeFile(file, (await runCli(['completion', 'zsh'])).stdout);
    const { stdout } = await run('zsh', ['-f', '-c', `autoload -U compinit && compinit -u -D; source '${file}'; print -r -- \${_comps[vaultkeeper]}`]);
    expect(stdout.trim()).toBe('_bash_complete -o filenames -F _vaultkeeper');
  });
});
