/** Every command's --help ends with an example a person can copy (the built CLI, every command it lists). */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/** The commands a --help lists under "Commands:", without `help` itself. */
function listed(help: string): string[] {
  const section = help.split(/^Commands:\n/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!).filter((name) => name !== 'help');
}

describe('command help', () => {
  it('has an example on every command and subcommand', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    const commands = listed(top.stdout);
    expect(commands).toEqual(expect.arrayContaining(['init', 'remember', 'search', 'import', 'export', 'daemon']));
    const missing: string[] = [];
    const queue = commands.map((name) => [name]);
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const help = await runCli([...path, '--help']);
      expect(help.code, path.join(' ')).toBe(0);
      if (!/^Examples?:\n {2}\$ vaultkeeper /m.test(help.stdout)) missing.push(path.join(' '));
      queue.push(...listed(help.stdout).map((name) => [...path, name]));
    }
    expect(missing).toEqual([]);
  }, 120_000);
});
