/**
 * The offline dream's statement writer (src/dream/statement.ts) over every turn of LoCoMo conversations
 * 0–6 (the tuning set; 7–9 are held out): each turn as the vault remembers it ("Speaker: text"), said on
 * its session's date, the other speaker as listener. Prints the share of turns changed, marked chatter
 * and question, the relative times resolved, the time per turn, and sample pairs to read.
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/statement-sample.js [--samples 40] [--seed 1]
 */
import { parseArgs } from 'node:util';
import { loadStatementWriter, type Statement } from '#src/dream/statement.js';
import { readLocomo, turnText } from './locomo.js';
import { createRandom } from './random.js';

const LOCOMO = '/work/shared/data/locomo/locomo10.json';
const TUNING = 7;

interface Row {
  before: string;
  after: Statement;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { samples: { type: 'string', default: '40' }, seed: { type: 'string', default: '1' }, file: { type: 'string', default: LOCOMO } } });
  const conversations = (await readLocomo(values.file)).slice(0, TUNING);
  const write = await loadStatementWriter();
  const rows: Row[] = [];
  let elapsed = 0;
  const cpu = process.cpuUsage();
  for (const conv of conversations) {
    for (const session of conv.sessions) {
      for (const turn of session.turns) {
        const before = turnText(turn, false);
        const listener = conv.speakers.find((s) => s !== turn.speaker) ?? null;
        const start = performance.now();
        const after = write(before, { date: session.date, owner: null, listener });
        elapsed += performance.now() - start;
        rows.push({ before, after });
      }
    }
  }
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  // A second pass with the same writer: its word caches full, as over a long backlog.
  const warmCpu = process.cpuUsage();
  const warmStart = performance.now();
  for (const conv of conversations) {
    for (const session of conv.sessions) {
      for (const turn of session.turns) write(turnText(turn, false), { date: session.date, owner: null, listener: conv.speakers.find((s) => s !== turn.speaker) ?? null });
    }
  }
  const warmWall = performance.now() - warmStart;
  const warmUsed = process.cpuUsage(warmCpu);
  const warmCpuMs = (warmUsed.user + warmUsed.system) / 1000;
  const n = rows.length;
  const share = (count: number): string => `${((100 * count) / n).toFixed(1)}%`;
  const changed = rows.filter((r) => r.after.text !== r.before).length;
  const labelOnly = rows.filter((r) => r.after.text === r.before.replace(/^[^:]+:\s+/u, '')).length;
  const chatter = rows.filter((r) => r.after.chatter).length;
  const questions = rows.filter((r) => r.after.question).length;
  const dated = rows.filter((r) => r.after.dates.length > 0);
  const dates = dated.reduce((sum, r) => sum + r.after.dates.length, 0);
  const stillFirstPerson = rows.filter((r) => !r.after.chatter && /\b(?:I|I'm|I've|I'll|I'd|me|my|mine|myself)\b/u.test(r.after.text)).length;

  console.log(`LoCoMo conversations 0–${TUNING - 1}: ${n} turns`);
  console.log(`changed:   ${changed} (${share(changed)})`);
  console.log(`only the label stripped: ${labelOnly} (${share(labelOnly)})`);
  console.log(`chatter:   ${chatter} (${share(chatter)})`);
  console.log(`question:  ${questions} (${share(questions)})`);
  console.log(`relative times resolved: ${dates} in ${dated.length} turns`);
  console.log(`content statements still in first person: ${stillFirstPerson}`);
  // CPU time is what the process spent; wall time also counts waiting for a shared machine's cores.
  console.log(`time per turn, first pass: ${(elapsed / n).toFixed(3)} ms wall, ${(cpuMs / n).toFixed(3)} ms CPU (totals ${(elapsed / 1000).toFixed(2)} s, ${(cpuMs / 1000).toFixed(2)} s)`);
  console.log(`time per turn, second pass: ${(warmWall / n).toFixed(3)} ms wall, ${(warmCpuMs / n).toFixed(3)} ms CPU`);

  const random = createRandom(Number(values.seed));
  const pick = <T>(list: readonly T[], count: number): T[] => {
    const pool = [...list];
    const out: T[] = [];
    while (out.length < count && pool.length > 0) out.push(pool.splice(random.int(pool.length), 1)[0]!);
    return out;
  };
  const samples = Number(values.samples);
  const show = (title: string, list: readonly Row[]): void => {
    console.log(`\n## ${title}`);
    for (const { before, after } of list) {
      const flags = [after.chatter ? 'chatter' : '', after.question ? 'question' : ''].filter((f) => f !== '').join(',');
      console.log(`- ${before}\n  → ${flags === '' ? '' : `[${flags}] `}${after.text}`);
      for (const d of after.dates) console.log(`    date: "${d.said}" → "${d.resolved}"`);
    }
  };
  show(`${samples} sample turns`, pick(rows, samples));
  show('10 turns with relative times', pick(dated, 10));
  show('10 turns marked chatter', pick(rows.filter((r) => r.after.chatter), 10));
}

await main();
