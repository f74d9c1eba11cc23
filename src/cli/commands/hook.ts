/**
 * `vaultkeeper hook session-start|ingest`: what an agent's hooks run. The agent passes the event as JSON
 * on standard input (`transcript_path`, `cwd`, …); session-start answers with the context to add, ingest
 * extracts the session's new lines now and prints nothing (an agent may take anything on stdout as its own).
 */
import { VaultkeeperError } from '../../core/errors.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

interface HookInput {
  transcript_path?: unknown;
  cwd?: unknown;
  hook_event_name?: unknown;
}

/** The hook's JSON from standard input; {} when there is none (a terminal, or nothing within 2 s). */
async function readHookInput(): Promise<HookInput> {
  if (process.stdin.isTTY) return {};
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve) => {
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', resolve);
    process.stdin.on('error', () => resolve());
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000)))]);
  clearTimeout(timer);
  process.stdin.pause();
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as HookInput) : {};
  } catch {
    throw new VaultkeeperError('VK_HOOK_INPUT', 'the hook input on standard input is not JSON', { hint: 'agents pass their hook event as JSON; run `vaultkeeper hook session-start --text` by hand' });
  }
}

export async function sessionStart(opts: { budget?: number; text?: boolean }, globals: GlobalOptions): Promise<void> {
  const input = await readHookInput();
  const cwd = typeof input.cwd === 'string' && input.cwd !== '' ? input.cwd : process.cwd();
  const vault = await openVault({ vault: globals.vault });
  const { sessionStartContext } = await import('../../recall/session-start.js');
  let context;
  try {
    context = await sessionStartContext(vault, { cwd, budgetTokens: opts.budget });
  } finally {
    await vault.close();
  }
  if (opts.text) {
    printLine(context.text.trimEnd());
    return;
  }
  // Claude Code, Codex and Gemini CLI all read this shape (Gemini CLI wants JSON only on stdout).
  printJson({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context.text } });
}

export async function ingest(opts: { offline?: boolean; json?: boolean }, globals: GlobalOptions): Promise<void> {
  const input = await readHookInput();
  const file = typeof input.transcript_path === 'string' && input.transcript_path !== '' ? input.transcript_path : null;
  if (file === null) {
    if (opts.json) printJson({ outcome: 'no-transcript' });
    return;
  }
  const vault = await openVault({ vault: globals.vault });
  const { scanSessionFile } = await import('../../extract/sessions.js');
  let result;
  try {
    result = await scanSessionFile(vault, file, { offline: opts.offline === true });
  } finally {
    await vault.close();
  }
  if (opts.json) printJson({ file, outcome: result.outcome, facts: result.session?.facts ?? 0, turns: result.session?.turns ?? 0, fallback: result.fallback });
}
