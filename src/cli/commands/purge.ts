import { createInterface } from 'node:readline/promises';
import { UsageError, VaultkeeperError } from '../../core/errors.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note, plural, printJson, printLine } from '../output.js';

export async function run(id: string | undefined, opts: { match?: string; reason?: string; yes?: boolean; json?: boolean }, globals: GlobalOptions): Promise<void> {
  if (id !== undefined && opts.match !== undefined) throw new UsageError('give a fact id or --match TEXT, not both');
  if (id === undefined && opts.match === undefined) throw new UsageError('purge needs a fact id or --match TEXT', 'e.g. vaultkeeper purge f-7k2m9q0a1b --reason "a password"');
  const target = id !== undefined ? { id } : { match: opts.match! };
  const vault = await openVault({ vault: globals.vault });
  const facts = await vault.purgeTargets(target);
  if (opts.yes !== true) {
    if (!process.stdin.isTTY) throw new UsageError('purge rewrites the git history and cannot be undone: confirm with --yes when not at a terminal');
    // The prompt goes to stderr, so --json keeps one document on stdout.
    process.stderr.write(`purge ${plural(facts.length, 'fact')}: ${facts.map((f) => `${f.id} (logs/${f.date}.md:${f.line})`).join(', ')}\n`);
    process.stderr.write('Its text is erased from the logs, pages, MEMORY.md, the index and the git history; this cannot be undone.\n');
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await prompt.question('Purge? [y/N] ');
    prompt.close();
    if (!/^y(es)?$/i.test(answer.trim())) throw new VaultkeeperError('VK_ABORTED', 'purge not confirmed; nothing was changed');
  }
  const result = await vault.purge(target, { reason: opts.reason, onNote: (message) => note(`vaultkeeper: note: ${message}`) });
  if (result.remote.note !== null) note(`vaultkeeper: note: ${result.remote.note}`);
  if (result.skipped.length > 0) note(`vaultkeeper: warning: these files hold the text but lead out of the vault and were not rewritten: ${result.skipped.join(', ')}`);
  if (opts.json) {
    printJson({ purged: result.purged, files: result.files, skipped: result.skipped, commit: result.commit, history: result.history, index: result.index, remote: result.remote });
    return;
  }
  printLine(`purged ${plural(result.purged.length, 'fact')}: ${result.purged.map((f) => `${f.id} (${f.path}:${f.line})`).join(', ')}`);
  printLine(`rewrote ${plural(result.files.length, 'file')} and ${plural(result.history.changed, 'git object')}; the history holds no copy of the text`);
  printLine(result.index === 'rebuilt' ? 'the index was rebuilt without it' : 'the index is busy: run `vaultkeeper reindex --clear` to rebuild it');
}
