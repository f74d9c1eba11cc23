/**
 * `vaultkeeper demo` (what `npm start` runs): builds a small vault from the sample facts shipped with
 * the project and walks through what vaultkeeper does, offline, with no API key.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { packageFile } from '../../core/package-files.js';
import type { FactInput } from '../../logs/factlog.js';
import { initVault } from '../../vault/init.js';
import { openVault } from '../../vault/vault.js';
import { parseStdinFacts } from './remember.js';
import { plural, printLine } from '../output.js';

const SAMPLES = packageFile('samples/demo-facts.jsonl');

export async function run(target: string | undefined): Promise<void> {
  const root = target ?? (await mkdtemp(path.join(os.tmpdir(), 'vaultkeeper-demo-')));
  const step = (title: string): void => printLine(`\n== ${title}`);

  step(`vaultkeeper init ${root}`);
  await initVault(root);
  printLine('a vault: zones 0_Inbox … 5_Archives, schema.md, index.md, log.md, MEMORY.md, .vaultkeeper/config.yaml, a git repository');
  const vault = await openVault({ vault: root });

  const samples: FactInput[] = await parseStdinFacts(await readFile(SAMPLES), {});
  const byDate = new Map<string, FactInput[]>();
  for (const fact of samples) byDate.set(fact.date ?? '', [...(byDate.get(fact.date ?? '') ?? []), fact]);
  step(`vaultkeeper remember … (${plural(samples.length, 'sample fact')} over ${plural(byDate.size, 'day')})`);
  for (const [date, facts] of byDate) {
    const result = await vault.remember(facts, { source: 'demo' });
    printLine(`${date}: ${plural(result.facts.length, 'fact')} appended to logs/${date}.md, commit ${result.commit?.slice(0, 8)}`);
  }

  const lastDate = [...byDate.keys()].at(-1)!;
  step(`logs/${lastDate}.md — the append-only source of truth (open it in Obsidian)`);
  process.stdout.write(await readFile(path.join(root, 'logs', `${lastDate}.md`), 'utf8'));

  step('vaultkeeper forget --match "wifi password" --reason "a secret, not a memory"');
  const forgotten = await vault.forget({ match: 'wifi password' }, { reason: 'a secret, not a memory' });
  for (const f of forgotten.tombstoned) printLine(`tombstoned ${f.id}: ${f.text}  (the log line stays; the fact never comes back)`);

  const embedder = await vault.loadEmbedder();
  step(`vaultkeeper reindex — project logs and pages into LanceDB (${embedder === null ? 'full text; set index.embedder for vectors too' : `full text + vectors from ${embedder.model}`})`);
  const indexed = await vault.reindex();
  printLine(`${plural(indexed.rows, 'row')} indexed (${indexed.facts} facts, ${indexed.pages} page sections, ${indexed.core} core) in ${indexed.ms} ms`);

  // Questions as an agent asks them: question words do not rank, and a superseded value ranks below the current one.
  for (const query of ['what coffee does the user like?', "where is the user's home?", 'wifi password']) {
    step(`vaultkeeper search "${query}"`);
    const results = await vault.search(query, { k: 3, refresh: false });
    if (results.length === 0) printLine('no results' + (query.includes('wifi') ? ' — the forgotten fact stays forgotten' : ''));
    for (const r of results) printLine(`${r.score.toFixed(2)}  ${r.text}  ${r.link}`);
  }

  step('vaultkeeper dream --force — consolidate the logs into wiki pages (offline consolidator, no LLM)');
  const dreamt = await vault.dream({ force: true, offline: true });
  printLine(`${dreamt.status}: ${dreamt.reason}; pages created: ${dreamt.pages.created.join(', ')}; watermark → ${dreamt.watermark.after}`);
  printLine(`every fact is cited as [[date#^id]]; "brewing method" was superseded (History kept); duplicates merged`);
  const coffee = dreamt.pages.created.find((p) => p.endsWith('Coffee.md'));
  if (coffee !== undefined) {
    step(`${coffee}`);
    process.stdout.write(await readFile(path.join(root, coffee), 'utf8'));
  }

  for (const query of ['how does the user brew coffee', 'home city']) {
    step(`vaultkeeper search "${query}" — now hitting pages`);
    for (const r of await vault.search(query, { k: 3, refresh: false })) printLine(`${r.score.toFixed(2)}  ${r.kind}  ${r.link}  ${r.text.split('\n').join(' ')}`);
  }

  step('vaultkeeper history — every change is a git commit that says what and why');
  for (const c of await vault.history()) printLine(`${c.sha.slice(0, 8)}  ${c.message.split('\n')[0]}`);

  step('vaultkeeper doctor');
  const report = await vault.doctor();
  printLine(report.ok ? 'healthy' : `${plural(report.problems.length, 'problem')}: ${report.problems.map((p) => p.code).join(', ')}`);

  await vault.close();
  printLine(`\nThe demo vault is in ${root}\nTry: npx vaultkeeper --vault ${root} remember "Likes green tea" -c preference`);
}
