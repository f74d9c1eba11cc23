/**
 * `npm run bench:secrets`: the secrets scan (src/secrets/) on the labelled set test/fixtures/secrets.jsonl: facts
 * holding a secret (cloud keys, tokens, passwords, PINs, codes, card numbers, IBANs) and look-alikes (versions,
 * dates, ids, phone and order numbers, "password" without one). Recall: the secrets whose value is gone from the
 * redacted text; false positives: look-alikes the scan changed. Also the scan's time per fact. Flags:
 *   --no-write   print only (docs/benchmarks.md untouched)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { redactFindings, scanSecrets } from '#src/secrets/scan.js';
import { BENCHMARKS_DOC, REPO_ROOT, print, writeSection } from './report.js';
import { machineInfo, markdownTable } from './stats.js';

interface Labelled {
  text: string;
  label: 'secret' | 'clean';
  secret?: string;
}

const { values } = parseArgs({ options: { 'no-write': { type: 'boolean', default: false } } });
const rows = (await readFile(path.join(REPO_ROOT, 'test/fixtures/secrets.jsonl'), 'utf8'))
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Labelled);

const missed: string[] = [];
const falsePositives: string[] = [];
let caught = 0;
// Once first, so the time below is the scan's and not the rule set's loading.
await scanSecrets('warm up ghp_R8x2Kq9Lm4Np7Tw3Vz6Yb1Cd5Fg0Hj2Kl8Mn');
const started = process.hrtime.bigint();
for (const row of rows) {
  const out = redactFindings(row.text, await scanSecrets(row.text)).text;
  if (row.label === 'secret') {
    if (row.secret !== undefined && !out.includes(row.secret)) caught++;
    else missed.push(row.text);
  } else if (out !== row.text) falsePositives.push(`${row.text} → ${out}`);
}
const perFact = Number(process.hrtime.bigint() - started) / 1e6 / rows.length;
const secrets = rows.filter((r) => r.label === 'secret').length;
const clean = rows.length - secrets;

const info = machineInfo();
const body = [
  '## The secrets scan (capture.secrets)',
  '',
  `\`npm run bench:secrets\` on test/fixtures/secrets.jsonl (${rows.length} labelled facts, written for this: ${secrets} holding a secret, ${clean} look-alikes); ${info.cpu}, ${info.cores} cores, Node ${info.node}, load ${info.load1}.`,
  'A secret counts as caught when its value is gone from the text the log would get; a look-alike is a false positive when the scan changed it at all.',
  '',
  markdownTable([
    ['', 'facts', 'result'],
    ['secrets caught (recall)', String(secrets), `${caught} (${((100 * caught) / secrets).toFixed(1)}%)`],
    ['look-alikes changed (false positives)', String(clean), `${falsePositives.length} (${((100 * falsePositives.length) / clean).toFixed(1)}%)`],
    ['scan time per fact (rules loaded)', String(rows.length), `${perFact.toFixed(2)} ms`],
  ]),
  '',
  missed.length === 0 ? 'Missed: none.' : `Missed (said too loosely for a cue-and-value rule): ${missed.map((m) => `"${m}"`).join('; ')}.`,
  falsePositives.length === 0 ? 'Changed look-alikes: none.' : `Changed look-alikes: ${falsePositives.map((m) => `"${m}"`).join('; ')}.`,
].join('\n');

print(body);
if (!values['no-write']) await writeSection(BENCHMARKS_DOC, 'secrets', body);
