import { writeFile } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';
import { liveFacts } from '../../export/facts.js';
import { EXPORT_FORMATS, formatFacts, type ExportFormat } from '../../export/format.js';
import { locateVault } from '../../vault/locate.js';
import type { GlobalOptions } from '../options.js';
import { note, plural } from '../output.js';

export async function run(opts: { format?: string; out?: string }, globals: GlobalOptions): Promise<void> {
  const format = (opts.format ?? 'jsonl') as ExportFormat;
  if (!EXPORT_FORMATS.includes(format)) throw new UsageError(`unknown export format '${opts.format}'`, `use one of: ${EXPORT_FORMATS.join(', ')}`);
  const facts = await liveFacts(locateVault({ vault: globals.vault }));
  const text = formatFacts(facts, format);
  if (opts.out === undefined) {
    process.stdout.write(text);
    return;
  }
  await writeFile(opts.out, text);
  note(`exported ${plural(facts.length, 'fact')} to ${opts.out}`);
}
