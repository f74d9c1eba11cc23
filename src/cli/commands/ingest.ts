import { ingestFiles } from '../../extract/ingest.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note, plural, printJson, printLine } from '../output.js';
import { progressBar } from '../progress.js';

interface IngestCliOptions {
  offline?: boolean;
  json?: boolean;
}

export async function run(files: string[], opts: IngestCliOptions, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const bar = progressBar();
  let result;
  try {
    result = await ingestFiles(vault, files, { offline: opts.offline === true, onProgress: (p) => bar.update('ingest', p.done, p.total) });
  } finally {
    bar.done();
  }
  const { appended, transcripts, unknown, ...counts } = result;
  if (opts.json) {
    printJson({
      ...counts,
      transcripts,
      unknown,
      appended: appended.map((f) => ({ id: f.id, date: f.date, path: f.path, line: f.line, category: f.category, text: f.text, tags: f.tags, source: f.source })),
    });
    return;
  }
  const extractor =
    result.mode === 'rules' ? 'the offline rules' : result.fallback === null ? `the LLM (${plural(result.llm_calls, 'call')})` : `the LLM (${plural(result.llm_calls, 'call')}) and the offline rules`;
  printLine(
    `ingested ${plural(result.files, 'file')}: ${plural(result.turns, 'turn')}, ${plural(result.candidates, 'candidate turn')}, ${plural(result.facts, 'new fact')} by ${extractor}`,
  );
  for (const fact of appended) printLine(`${fact.id}\t${fact.path}:${fact.line}\t[${fact.category}] ${fact.text}`);
  if (unknown.length > 0) note(`${plural(unknown.length, 'file')} in the folders given ${unknown.length === 1 ? 'is' : 'are'} in no transcript format and ${unknown.length === 1 ? 'was' : 'were'} left out: ${unknown.join(', ')}`);
  if (result.duplicates > 0) note(`${plural(result.duplicates, 'fact')} already in the log from the same transcript, not appended again`);
  if (result.skipped_lines > 0) note(`${plural(result.skipped_lines, 'line')} of the transcripts could not be read and were skipped`);
  if (result.fallback !== null) note(`${result.fallback}`);
  if (result.invalid_replies > 0) note(`${plural(result.invalid_replies, 'LLM reply', 'LLM replies')} were not valid JSON; the rules read those turns instead`);
}
