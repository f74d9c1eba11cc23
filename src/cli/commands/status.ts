import { localStamp } from '../../core/clock.js';
import { locateVault } from '../../vault/locate.js';
import type { VaultStatus } from '../../vault/status.js';
import { askDaemon } from '../ask-daemon.js';
import type { GlobalOptions } from '../options.js';
import { note, printJson, printLine } from '../output.js';

export async function run(opts: { json?: boolean; dashboard?: boolean }, globals: GlobalOptions): Promise<void> {
  if (opts.dashboard) {
    const { openVault } = await import('../../vault/vault.js');
    const written = await (await openVault({ vault: globals.vault })).dashboard();
    note(`vaultkeeper: ${written.path} ${written.changed ? `rewritten${written.commit ? ` (commit ${written.commit.slice(0, 7)})` : ''}` : 'unchanged'}`);
  }
  const status = await readStatus(globals);
  if (opts.json) {
    printJson(status);
    return;
  }
  printLine(`vault      ${status.vault}`);
  printLine(`watermark  ${status.watermark ?? '(none yet)'}${status.skipped.length > 0 ? `  (skipped: ${status.skipped.join(', ')})` : ''}`);
  printLine(`pending    ${status.pending_days} days, ${status.facts_pending} facts${status.pending_days > 0 ? ` (${status.pending[0]}..${status.pending.at(-1)})` : ''}`);
  for (const day of status.skipped_days) printLine(`skipped    ${day.date}${day.at === null ? '' : ` (given up ${clock(day.at, status.time_zone)})`}: ${day.reason}; retry with \`vaultkeeper dream --retry-skipped\``);
  printLine(`dream      last ${status.dream.last_status ?? 'never'}${status.dream.last_run ? ` (${status.dream.last_run})` : ''}`);
  printLine(`           ${dreamLine(status.dream, status.time_zone)}`);
  if (status.dream.opens !== null) printLine(`           opens with ${status.dream.opens}`);
  printLine(status.index === null ? 'index      not built yet (vaultkeeper reindex)' : `index      ${status.index.rows} rows (${status.index.facts} facts, ${status.index.pages} page sections, ${status.index.core} core), ${status.index.embedder}`);
  printLine(`daemon     ${status.daemon.running ? `running (pid ${status.daemon.pid})` : 'not running'}`);
  for (const job of status.schedule) printLine(`job        ${jobLine(job, status.time_zone)}`);
  for (const failure of status.last_errors) printLine(`error      ${failure.job} (${failure.consecutive_failures}× in a row): ${failure.error}`);
  const llm = status.llm as { configured?: boolean; today?: { total_tokens?: number }; check?: { ok: boolean; message: string } | null; fallback?: { mode: string; reason: string } | null };
  if (llm.configured) {
    const check = llm.check ? (llm.check.ok ? 'reachable' : `unreachable (${llm.check.message})`) : 'not checked';
    printLine(`llm        ${check}; ${llm.today?.total_tokens ?? 0} tokens today`);
    if (llm.fallback) printLine(`           ${llm.fallback.mode === 'offline' ? 'dreams use the offline consolidator' : 'LLM jobs wait'}: ${llm.fallback.reason}`);
  }
  for (const line of captureLines(status.capture)) printLine(line);
  printLine(`dashboard  ${status.dashboard === null ? 'not written yet (vaultkeeper status --dashboard)' : status.dashboard}`);
}

/** One line per agent captured, or the one line saying nothing is (and how to opt in). */
function captureLines(capture: VaultStatus['capture'] | undefined): string[] {
  if (capture === undefined) return []; // a daemon of an older version answered
  const named = [...capture.sources.map((s) => (s.project === null ? `${s.agent} (all projects)` : `${s.agent} --project ${s.project}`)), ...capture.configured.map((g) => `${g} (extract.sessions)`)];
  if (named.length === 0) return [`capture    ${capture.line.replace(/^capture: /, '')}`];
  return named.map((entry, i) => `${i === 0 ? 'capture   ' : '          '} ${entry}`);
}

function dreamLine(dream: VaultStatus['dream'], tz: string): string {
  const when = dream.next_check_at === null ? 'no daemon runs: nothing checks until `vaultkeeper dream`, which would' : `next check ${clock(dream.next_check_at, tz)}:`;
  if (dream.will_run) return `${when} run (${dream.reason})`;
  if (dream.decision === 'noop') return `${when} do nothing (${dream.reason})`;
  return `${when} ${dream.next_check_at === null ? 'be ' : ''}gated by ${dream.gate}: ${dream.reason}`;
}

function jobLine(job: VaultStatus['schedule'][number], tz: string): string {
  const last = job.last_run_at === null ? 'never run' : `last ${clock(job.last_run_at, tz)} ${job.last_result ?? 'running'}${job.last_summary ? ` (${job.last_summary})` : ''}`;
  const next = job.next_reason === 'owed' ? 'next tick (owed)' : job.next_run_at === null ? 'on its event' : `${clock(job.next_run_at, tz)}${job.next_reason === 'retry' ? ' (retry)' : ''}`;
  return `${job.job.padEnd(8)} ${last}; next ${next}`;
}

/** An ISO time in the vault's time zone, "YYYY-MM-DD HH:MM", the way a person reads a schedule. */
function clock(iso: string, timeZone: string): string {
  const stamp = localStamp(new Date(iso), timeZone);
  return `${stamp.date} ${stamp.time}`;
}

/** From the daemon when it runs (nothing to load), else read here; the same either way. */
export async function readStatus(globals: GlobalOptions): Promise<VaultStatus> {
  const root = locateVault({ vault: globals.vault });
  const reply = await askDaemon<VaultStatus>(root, { op: 'status' });
  // The daemon may know the vault by another spelling of its path (a symlink): report it as asked.
  if (reply !== null) return { ...reply.value, vault: root };
  const { openVault } = await import('../../vault/vault.js');
  return (await openVault({ vault: globals.vault })).status();
}
