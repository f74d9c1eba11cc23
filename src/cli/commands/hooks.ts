/** `vaultkeeper hooks install|uninstall AGENT`: an agent's own settings run vaultkeeper at session start and end. */
import os from 'node:os';
import path from 'node:path';
import { addCapture, describeSource } from '../../extract/capture.js';
import { hookAgent, installHooks, uninstallHooks } from '../../hooks/install.js';
import { locateVault } from '../../vault/locate.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

interface HooksCliOptions {
  project?: string;
  json?: boolean;
}

const home = (): string => process.env.HOME || os.homedir();

/** A shell word: single quotes, with any single quote in it closed, escaped and reopened. */
function shellWord(word: string): string {
  if (/^[A-Za-z0-9_/.,:@%+=-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export async function install(agent: string, opts: HooksCliOptions, globals: GlobalOptions): Promise<void> {
  const name = hookAgent(agent);
  const root = locateVault({ vault: globals.vault });
  const project = opts.project === undefined ? null : path.resolve(opts.project);
  // The same node and CLI that ran this, so the hook works without vaultkeeper on the agent's PATH.
  const command = [process.execPath, process.argv[1]!, '--vault', root].map(shellWord).join(' ');
  const change = await installHooks({ agent: name, home: home(), project, command });
  // Installing the hooks is the person's opt-in to capturing this agent's sessions.
  const capture = await addCapture(root, name, project);
  if (opts.json) {
    printJson({ ...change, capture: capture.source });
    return;
  }
  printLine(`${change.changed ? 'installed' : 'already installed'}: ${change.events.join(', ')} hooks in ${change.file}`);
  printLine(`${capture.added ? 'now capturing' : 'capturing'} ${describeSource(capture.source)}; undo with \`vaultkeeper hooks uninstall ${name}${project === null ? '' : ` --project ${project}`}\``);
}

export async function uninstall(agent: string, opts: HooksCliOptions, _globals: GlobalOptions): Promise<void> {
  const name = hookAgent(agent);
  const project = opts.project === undefined ? null : path.resolve(opts.project);
  const change = await uninstallHooks({ agent: name, home: home(), project });
  if (opts.json) {
    printJson(change);
    return;
  }
  printLine(change.changed ? `removed vaultkeeper's hooks from ${change.file}` : `no vaultkeeper hooks in ${change.file}`);
  printLine(`the capture of ${name} is unchanged; \`vaultkeeper capture remove ${name}\` stops it`);
}
