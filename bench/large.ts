/**
 * The large-vault section (`npm run bench -- --only large`): the bench's 100k-fact vault (200 days × 500
 * facts, 200 pages, seed 42, embedder none), committed as a person's vault would be. `remember` through the
 * CLI, one fact at a time (its p50 has a target of 200 ms), and the rebuild (`reindex --clear`) alternating
 * with qmd's cold `collection add` over the same markdown files when QMD_BIN is set (target ≤ 1.5× qmd's).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { runCli, type ChildResult } from './child.js';
import { must, paired, setUpQmd, type Timing } from './dendron.js';
import { generateVault } from './generate.js';
import { progress } from './report.js';
import { markdownTable, ms, summarize, type Summary } from './stats.js';
import { setEmbedder } from './vaults.js';

export interface LargeResult {
  facts: number;
  rows: number;
  remember: Summary;
  rebuild: Timing;
  qmd: string | null;
}

export async function measureLarge(base: string, options: { runs: number; remembers: number; env: NodeJS.ProcessEnv }): Promise<LargeResult> {
  const root = path.join(base, 'large-vault');
  progress('bench: large: generating 200 days × 500 facts and 200 pages');
  const generated = await generateVault(root, { days: 200, factsPerDay: 500, pages: 200, seed: 42 });
  await setEmbedder(root, 'none');
  const git = (args: string[]): void => void execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: root, stdio: 'ignore' });
  git(['add', '--all']);
  git(['commit', '-q', '-m', 'generated vault']);
  const vk = (args: readonly string[]): Promise<ChildResult> => runCli(['--vault', root, ...args], { env: options.env });
  const rows = (JSON.parse((await must(vk(['reindex', '--json']), 'reindex')).stdout) as { rows: number }).rows;

  progress(`bench: large: ${options.remembers} remembers`);
  const remember: number[] = [];
  for (let i = 0; i < options.remembers; i++) {
    remember.push((await must(vk(['remember', `Bench fact ${i}: tried a new pour-over ratio`, '--json']), 'remember')).wallMs);
  }

  const qmd = process.env.QMD_BIN ? await setUpQmd(path.join(base, 'large-qmd'), root, options.env) : null;
  progress(`bench: large: ${options.runs} rebuilds${qmd ? ', alternating with qmd' : ''}`);
  const rebuild = await paired(options.runs, () => vk(['reindex', '--clear', '--json']), qmd && (() => qmd.cold()));
  return { facts: generated.facts, rows, remember: summarize(remember), rebuild, qmd: process.env.QMD_BIN ?? null };
}

export function renderLarge(r: LargeResult): string {
  const met = (ok: boolean): string => (ok ? 'met' : 'not met');
  return [
    '### The 100k-fact vault: remember and rebuild',
    '',
    `The bench's generated vault (${r.facts.toLocaleString('en-US')} facts in 200 day logs, 200 pages, seed 42; ${r.rows.toLocaleString('en-US')} rows; embedder \`none\`), committed to git. ` +
      (r.qmd === null ? 'qmd not run (set QMD_BIN).' : `qmd (\`${r.qmd}\`) indexes the same markdown files, runs alternating; ratio = median of pairwise ratios.`),
    '',
    markdownTable([
      ['', 'vaultkeeper p50 / p95', 'qmd p50 / p95', 'ratio', 'target'],
      [`\`remember\` one fact (CLI), ${r.remember.n} runs`, `${ms(r.remember.p50)} / ${ms(r.remember.p95)}`, '—', '—', `p50 ≤ 200 ms: ${met(r.remember.p50 <= 200)}`],
      [
        `rebuild (\`reindex --clear\` / \`collection add\`), ${r.rebuild.ours.n} runs`,
        `${ms(r.rebuild.ours.p50)} / ${ms(r.rebuild.ours.p95)}`,
        r.rebuild.qmd === null ? '—' : `${ms(r.rebuild.qmd.p50)} / ${ms(r.rebuild.qmd.p95)}`,
        r.rebuild.ratio === null ? '—' : `${r.rebuild.ratio.toFixed(2)}×`,
        r.rebuild.ratio === null ? '≤ 1.5× qmd' : `≤ 1.5× qmd: ${met(r.rebuild.ratio <= 1.5)}`,
      ],
    ]),
  ].join('\n');
}
