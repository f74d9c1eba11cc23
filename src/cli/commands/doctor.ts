import { isError, runDoctor, type DoctorReport, type Problem } from '../../doctor/doctor.js';
import type { FixIdsResult } from '../../logs/fix-ids.js';
import { locateVault } from '../../vault/locate.js';
import { openVault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { repairStores, type StoreRepair } from '../../doctor/repair-stores.js';
import { plural, printJson, printLine } from '../output.js';

export async function run(opts: { json?: boolean; fix?: boolean }, globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  // The fix needs the config (it commits); a check alone must work even when the config does not load.
  // The repository and the tombstones first: every other writer stops while either is damaged.
  const repaired = opts.fix ? await repairStores(root) : undefined;
  const fixed: FixIdsResult | undefined = opts.fix && repaired?.remaining.length === 0 ? await (await openVault({ vault: root })).fixIds() : undefined;
  const report: DoctorReport & { fixed?: FixIdsResult['fixed']; commit?: string | null; repaired?: StoreRepair } = await runDoctor(root);
  if (fixed !== undefined) Object.assign(report, { fixed: fixed.fixed, commit: fixed.commit });
  if (repaired !== undefined) report.repaired = repaired;
  if (!report.ok) process.exitCode = 1;
  if (opts.json) {
    printJson(report);
    return;
  }
  for (const action of repaired?.actions ?? []) printLine(`fixed: ${action}`);
  for (const left of repaired?.remaining ?? []) printLine(`not fixed: ${left}`);
  if (fixed !== undefined) {
    printLine(
      fixed.fixed.length === 0
        ? 'fixed nothing: every fact line has its ^id'
        : `fixed ${plural(fixed.fixed.length, 'fact line')}: appended its ^id, commit ${fixed.commit?.slice(0, 8) ?? '(none)'}`,
    );
    for (const f of fixed.fixed) printLine(`  ${f.path}:${f.line}  ^${f.id}`);
  }
  const errors = report.problems.filter(isError);
  const notes = report.problems.filter((p) => !isError(p));
  printLine(report.ok ? `${root}: healthy` : `${root}: ${plural(errors.length, 'problem')}`);
  for (const p of errors) printProblem(p);
  // Warnings and notes leave the vault healthy (exit 0): said after the problems, marked as what they are.
  for (const p of notes) printProblem(p, `${p.severity}: `);
}

function printProblem(p: Problem, prefix = ''): void {
  const where = p.path === null ? '' : `${p.path}${p.line === null ? '' : `:${p.line}`}  `;
  printLine(`  ${p.code.padEnd(17)} ${prefix}${where}${p.message}`);
}
