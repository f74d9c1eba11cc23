import { runDoctor } from '../../doctor/doctor.js';
import { locateVault } from '../../vault/locate.js';
import type { GlobalOptions } from '../options.js';
import { plural, printJson, printLine } from '../output.js';

export async function run(opts: { json?: boolean }, globals: GlobalOptions): Promise<void> {
  const root = locateVault({ vault: globals.vault });
  const report = await runDoctor(root);
  if (!report.ok) process.exitCode = 1;
  if (opts.json) {
    printJson(report);
    return;
  }
  if (report.ok) {
    printLine(`${root}: healthy`);
    return;
  }
  printLine(`${root}: ${plural(report.problems.length, 'problem')}`);
  for (const p of report.problems) {
    const where = p.path === null ? '' : `${p.path}${p.line === null ? '' : `:${p.line}`}  `;
    printLine(`  ${p.code.padEnd(17)} ${where}${p.message}`);
  }
}
