/**
 * A vault with every source of index rows (logs consolidated, skipped and pending; pages citing facts; a
 * tombstone; MEMORY.md), big enough for a forced projection pool to split it into chunks, and an update
 * that changes, adds and removes files: to compare builds with and without projection workers.
 */
import { appendFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { initVault } from '../../src/vault/init.js';
import { dumpTable } from './table-dump.js';
import { writeTree } from './tmp.js';

const DATES = Array.from({ length: 12 }, (_, i) => `2026-05-${String(i + 1).padStart(2, '0')}`);
const WORDS = ['harbour', 'cello', 'espresso', 'Tōkyō', 'naïve', 'orchestra', 'Lisbon', 'garden', 'bicycle', 'ferry', 'café', '😀'];
const factId = (d: number, n: number): string => `f-${String(d).padStart(2, '0')}${String(n).padStart(8, '0')}`;

/** A vault with logs (consolidated, skipped and pending), pages citing facts, a tombstone and MEMORY.md: every source of rows. */
function files(pages: number): Record<string, string> {
  const out: Record<string, string> = {};
  DATES.forEach((date, d) => {
    const lines = [`# ${date}`, ''];
    for (let batch = 0; batch < 3; batch++) {
      lines.push(`## 0${batch + 7}:00 · cli`);
      for (let n = 0; n < 20; n++) {
        const i = batch * 20 + n;
        const word = WORDS[(d + i) % WORDS.length]!;
        const text = i % 7 === 0 ? `${word} place:: ${WORDS[i % WORDS.length]} ${d}` : `Fact ${i} of day ${d} about the ${word} and ${WORDS[(i * 5) % WORDS.length]}`;
        lines.push(`- [${i % 3 === 0 ? 'preference' : 'fact'}] ${text} #t${i % 4} ^${factId(d, i)}`);
      }
      lines.push('');
    }
    out[`logs/${date}.md`] = lines.join('\n');
  });
  for (let p = 0; p < pages; p++) {
    const d = p % 4; // pages cite the consolidated days
    const body = [
      '---',
      `title: Page ${p} ${WORDS[p % WORDS.length]}`,
      `tags: [t${p % 3}, topic]`,
      `aliases: [alias ${p}]`,
      p % 5 === 0 ? 'status: archived' : 'type: topic',
      '---',
      `# Page ${p}`,
      '',
      `Intro paragraph about ${WORDS[(p + 3) % WORDS.length]} with **bold** and a [[Page ${(p + 1) % pages}]] link.`,
      '',
      '## Facts',
      '',
      ...Array.from({ length: 15 }, (_, n) => `- ${WORDS[(p + n) % WORDS.length]} noted [[${DATES[d]}#^${factId(d, (p + n) % 60)}]]`),
      '',
      '## Notes',
      '',
      ...Array.from({ length: 10 }, (_, n) => `${n + 1}. A longer line ${n} on ${WORDS[(p * n) % WORDS.length]}, repeated for size. `.repeat(3)),
      '',
    ];
    out[`${p % 5 === 0 ? '5_Archives' : '2_Areas'}/Page ${p}.md`] = body.join('\n');
  }
  out['MEMORY.md'] = '# Memory\n\n## Core\n\n- Prefers the harbour café.\n- Plays the cello.\n';
  out['log.md'] = `# Dream log\n\n- 2026-05-05T03:00:00Z · run r-1 · consolidated ${DATES[0]}..${DATES[3]} · watermark=${DATES[3]} · skipped=${DATES[2]}\n`;
  out['.vaultkeeper/tombstones.jsonl'] = `${JSON.stringify({ id: factId(1, 3), text: 'fact 3 of day 1', at: '2026-05-06T00:00:00Z', reason: 'test' })}\n${JSON.stringify({ id: 'f-zzzzzzzzzz', text: 'ferry and', at: '2026-05-06T00:00:00Z', reason: 'test' })}\n`;
  return out;
}

/**
 * Some files edited, one added, one removed, a page's citations changed (so consolidated logs change too), and
 * a line more on every other page (`pages` as the vault was made with): an update as big as the vault, so a
 * worker has loaded while it runs.
 */
export async function changeProjectionVault(root: string, pages = 40): Promise<void> {
  for (let p = 3; p < pages; p++) await appendFile(path.join(root, p % 5 === 0 ? '5_Archives' : '2_Areas', `Page ${p}.md`), `\n- Edited on ${p % 7} days.\n`);
  await writeFile(path.join(root, 'logs', `${DATES[6]}.md`), `${await readFile(path.join(root, 'logs', `${DATES[6]}.md`), 'utf8')}## 10:00 · cli\n- [fact] A late ferry to Porto #travel ^f-9900000001\n`);
  await writeFile(path.join(root, '2_Areas/Page 1.md'), '# Page 1\n\n- Rewritten: only the cello now.\n');
  await writeFile(path.join(root, '2_Areas/New page.md'), `# New\n\n- Cites [[${DATES[1]}#^${factId(1, 5)}]] and the garden.\n`);
  await rm(path.join(root, '2_Areas/Page 2.md'));
}

/**
 * The vault made by the real init in `dir`, not yet indexed; embedder none, so a forced pool is used. With 40
 * pages the pass is often over before a worker has loaded; hundreds keep the indexer's thread busy long enough for one to take chunks.
 */
export async function makeProjectionVault(dir: string, pages = 40): Promise<string> {
  const root = path.join(dir, 'vault');
  await initVault(root);
  await writeTree(root, { ...files(pages), '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
  return root;
}

/** Every row of the index table in its order, and the row hash shards (index-rows/) as written, by name. */
export async function projectionState(root: string): Promise<{ rows: Array<Record<string, unknown>>; manifest: string }> {
  const dir = path.join(root, '.vaultkeeper/index-rows');
  const shards: string[] = [];
  for (const name of (await readdir(dir)).sort()) shards.push(`${name}\n${await readFile(path.join(dir, name), 'utf8')}`);
  return { rows: await dumpTable(root), manifest: shards.join('\n') };
}
