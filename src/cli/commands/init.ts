import { UsageError } from '../../core/errors.js';
import { initVault } from '../../vault/init.js';
import { printJson, printLine } from '../output.js';

export async function run(target: string, opts: { json?: boolean; adopt?: boolean; obsidianSettings?: boolean }): Promise<void> {
  if (opts.adopt) return adopt(target, opts);
  if (opts.obsidianSettings) throw new UsageError('--obsidian-settings goes with --adopt', 'a new vault gets the settings anyway: run `vaultkeeper init PATH`');
  const result = await initVault(target);
  if (opts.json) {
    printJson(result);
    return;
  }
  printLine(`created a vault in ${result.root}`);
  printLine(await captureSummary(result.root));
  printLine('next: vaultkeeper remember "…"   (open the folder in Obsidian to browse it)');
}

async function adopt(target: string, opts: { json?: boolean; obsidianSettings?: boolean }): Promise<void> {
  const { adoptVault } = await import('../../vault/adopt.js');
  const { openVault } = await import('../../vault/vault.js');
  const result = await adoptVault(target, { obsidianSettings: opts.obsidianSettings ?? false });
  // The notes become searchable pages now rather than on the first search.
  const vault = await openVault({ vault: result.root });
  let indexed;
  try {
    indexed = await vault.reindex();
  } finally {
    await vault.close();
  }
  if (opts.json) {
    printJson({ ...result, index: { rows: indexed.rows, pages: indexed.pages } });
    return;
  }
  printLine(`adopted ${result.root}: no note changed; added ${result.added.join(', ')}`);
  if (result.kept.length > 0) printLine(`kept your own ${result.kept.join(', ')}`);
  printLine(result.createdRepo ? `created a git repository; the notes as they were are commit ${result.snapshot?.slice(0, 8)}` : 'used the existing git repository; committed only the files above');
  printLine(`indexed ${indexed.pages} page sections`);
  printLine(await captureSummary(result.root));
  printLine('next: vaultkeeper remember "…"   (the notes are searchable now: vaultkeeper search "…")');
}

/** The one line that says what agent transcripts the vault captures (none until named) and how to change it. */
async function captureSummary(root: string): Promise<string> {
  const os = await import('node:os');
  const { loadConfig } = await import('../../core/config.js');
  const { readCaptureState } = await import('../../extract/capture.js');
  const config = await loadConfig(root);
  return (await readCaptureState(root, config.extract.sessions, process.env.HOME || os.homedir())).line;
}
