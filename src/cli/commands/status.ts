import { locateVault } from '../../vault/locate.js';
import type { VaultStatus } from '../../vault/status.js';
import { askDaemon } from '../ask-daemon.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine } from '../output.js';

export async function run(opts: { json?: boolean }, globals: GlobalOptions): Promise<void> {
  const status = await readStatus(globals);
  if (opts.json) {
    printJson(status);
    return;
  }
  printLine(`vault      ${status.vault}`);
  printLine(`watermark  ${status.watermark ?? '(none yet)'}${status.skipped.length > 0 ? `  (skipped: ${status.skipped.join(', ')})` : ''}`);
  printLine(`pending    ${status.pending_days} days, ${status.facts_pending} facts${status.pending_days > 0 ? ` (${status.pending[0]}..${status.pending.at(-1)})` : ''}`);
  printLine(`dream      last ${status.dream.last_status ?? 'never'}${status.dream.last_run ? ` (${status.dream.last_run})` : ''}`);
  printLine(status.index === null ? 'index      not built yet (vaultkeeper reindex)' : `index      ${status.index.rows} rows (${status.index.facts} facts, ${status.index.pages} page sections, ${status.index.core} core), ${status.index.embedder}`);
  printLine(`daemon     ${status.daemon.running ? `running (pid ${status.daemon.pid})` : 'not running'}`);
  for (const failure of status.last_errors) printLine(`error      ${failure.job} (${failure.consecutive_failures}× in a row): ${failure.error}`);
  const llm = status.llm as { configured?: boolean; today?: { total_tokens?: number }; check?: { ok: boolean; message: string } | null; fallback?: { mode: string; reason: string } | null };
  if (llm.configured) {
    const check = llm.check ? (llm.check.ok ? 'reachable' : `unreachable (${llm.check.message})`) : 'not checked';
    printLine(`llm        ${check}; ${llm.today?.total_tokens ?? 0} tokens today`);
    if (llm.fallback) printLine(`           ${llm.fallback.mode === 'offline' ? 'dreams use the offline consolidator' : 'LLM jobs wait'}: ${llm.fallback.reason}`);
  }
}

/** From the daemon when it runs (nothing to load), else read here; the same either way. */
async function readStatus(globals: GlobalOptions): Promise<VaultStatus> {
  const root = locateVault({ vault: globals.vault });
  const reply = await askDaemon<VaultStatus>(root, { op: 'status' });
  // The daemon may know the vault by another spelling of its path (a symlink): report it as asked.
  if (reply !== null) return { ...reply.value, vault: root };
  const { openVault } = await import('../../vault/vault.js');
  return (await openVault({ vault: globals.vault })).status();
}
