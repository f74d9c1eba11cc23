import { importExport } from '../../import/import.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note, plural, printJson, printLine } from '../output.js';

interface ImportCliOptions {
  offline?: boolean;
  json?: boolean;
}

export async function run(given: string, opts: ImportCliOptions, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const result = await importExport(vault, given, { offline: opts.offline === true });
  if (result.warning !== undefined) note(`vaultkeeper: warning: ${result.warning}`);
  if (opts.json) {
    const { appended, ...rest } = result;
    printJson({ ...rest, appended: appended.map((f) => ({ id: f.id, date: f.date, path: f.path, line: f.line, category: f.category, text: f.text, tags: f.tags, source: f.source })) });
    return;
  }
  const from = result.conversations > 0 ? ` (${plural(result.conversations, 'conversation')}, ${plural(result.turns, 'turn')})` : '';
  const pages = result.pages.added.length > 0 ? ` and ${plural(result.pages.added.length, 'note')} as pages` : '';
  printLine(`imported a ${result.format} export${from}: ${plural(result.facts, 'new fact')}${pages}${result.commit === null ? '' : `, commit ${result.commit.slice(0, 8)}`}`);
  if (result.duplicates > 0 || result.pages.unchanged > 0) {
    note(`${plural(result.duplicates + result.pages.unchanged, 'item')} already in the vault, not imported again`);
  }
  if (result.forgotten > 0) note(`${plural(result.forgotten, 'fact')} repeat forgotten facts and were left out`);
  if (result.unreadable > 0) note(`${plural(result.unreadable, 'record')} of the export could not be read and were skipped`);
  for (const skipped of result.pages.skipped) note(`not adopted: ${skipped.path}: ${skipped.reason}`);
}
