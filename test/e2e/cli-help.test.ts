/** Every command's --help ends with an example a person can copy (the built CLI, every command it lists). */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/** The commands a --help lists under "Commands:", without `help` itself. */
function listed(help: string): string[] {
  // The section ends at its first blank line (examples follow it).
  const section = (help.split(/^Commands:\n/m)[1] ?? '').split(/\n\s*\n/)[0]!;
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!).filter((name) => name !== 'help');
}

describe('command help', () => {
  it('has an example on every command and subcommand', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    const commands = listed(top.stdout);
    expect(commands).toEqual(expect.arrayContaining(['init', 'remember', 'search', 'import', 'export', 'daemon']));
    const missing: string[] = [];
    // A level at a time, its commands at once: each is a CLI start of its own.
    for (let level = commands.map((name) => [name]); level.length > 0; ) {
      const helps = await Promise.all(level.map((path) => runCli([...path, '--help'])));
      const next: string[][] = [];
      helps.forEach((help, i) => {
        const path = level[i]!;
        expect(help.code, path.join(' ')).toBe(0);
        if (!/^Examples?:\n {2}\$ (?:.*\| )?vaultkeeper /m.test(help.stdout)) missing.push(path.join(' '));
        next.push(...listed(help.stdout).map((name) => [...path, name]));
      });
      level = next;
    }
    expect(missing).toEqual([]);
  }, 240_000);
});
