/** `vaultkeeper capture add|list|remove`: which agents' transcripts the session watcher may read (nothing unless named). */
import os from 'node:os';
import { addCapture, describeSource, readCaptureState, removeCapture } from '../../extract/capture.js';
import { loadConfig } from '../../core/config.js';
import { locateVault } from '../../vault/locate.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

interface CaptureCliOptions {
  project?: string;
  json?: boolean;
}

export async function add(agent: string, opts: CaptureCliOptions, globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  const result = await addCapture(root, agent, opts.project ?? null);
  if (opts.json) {
    printJson({ added: result.added, source: result.source, sources: result.list.sources });
    return;
  }
  printLine(`${result.added ? 'capturing' : 'already capturing'} ${describeSource(result.source)}; the daemon's session watcher reads these transcripts (\`vaultkeeper capture remove ${agent}\` stops it)`);
}

export async function remove(agent: string, opts: CaptureCliOptions, globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  const result = await removeCapture(root, agent, opts.project ?? null);
  if (opts.json) {
    printJson({ removed: result.removed, sources: result.list.sources });
    return;
  }
  if (result.removed.length === 0) printLine(`nothing of ${agent}${opts.project === undefined ? '' : ` --project ${opts.project}`} was captured`);
  for (const source of result.removed) printLine(`no longer capturing ${describeSource(source)}; facts already extracted stay in the logs`);
}

export async function list(opts: { json?: boolean }, globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  const config = await loadConfig(root);
  const state = await readCaptureState(root, config.extract.sessions, process.env.HOME || os.homedir());
  if (opts.json) {
    printJson(state);
    return;
  }
  for (const source of state.sources) printLine(describeSource(source));
  for (const glob of state.configured) printLine(`${glob} (extract.sessions)`);
  if (state.sources.length === 0 && state.configured.length === 0) printLine(state.line);
}
