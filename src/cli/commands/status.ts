import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine } from '../output.js';

export async function run(opts: { json?: boolean }, globals: GlobalOptions): Promise<void> {
  const vault = await openVault({ vault: globals.vault });
  const status = await vault.status();
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
