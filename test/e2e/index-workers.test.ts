/**
 * Projection workers (src/indexer/project-pool.ts) change where the rows are made, never what they are: the
 * same vault built in one thread and with one or two workers (VAULTKEEPER_INDEX_WORKERS forces the pool
 * whatever the vault's size) gives the same rows in the same table order and the same index-rows.json, on a
 * rebuild and on an update that changes, adds and removes files.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson } from '../helpers/cli.js';
import { dumpTable } from '../helpers/table-dump.js';
import { initVault } from '../../src/vault/init.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();

const DATES = Array.from({ length: 12 }, (_, i) => `2026-05-${String(i + 1).padStart(2, '0')}`);
const WORDS = ['harbour', 'cello', 'espresso', 'Tōkyō', 'naïve', 'orchestra', 'Lisbon', 'garden', 'bicycle', 'ferry', 'café', '😀'];
const factId = (d: number, n: number): string => `f-${String(d).padStart(2, '0')}${String(n).padStart(8, '0')}`;

/** A vault with logs (consolidated, skipped and pending), pages citing facts, a tombstone and MEMORY.md: every source of rows. */
function files(): Record<string, string> {
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
  for (let p = 0; p < 40; p++) {
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
      `Intro paragraph about ${WORDS[(p + 3) % WORDS.length]} with **bold** and a [[Page ${(p + 1) % 40}]] link.`,
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

interface Reindexed {
  rows: number;
  workers: number;
  ms: number;
}

async function build(workers: number): Promise<{ root: string; result: Reindexed }> {
  const root = path.join(await tempDir(), 'vault');
  await initVault(root);
  await writeTree(root, { ...files(), '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n' });
  const result = await runJson<Reindexed>(['--vault', root, 'reindex', '--clear'], { env: { VAULTKEEPER_INDEX_WORKERS: String(workers) } });
  return { root, result };
}

/** Some files edited, one added, one removed, a page's citations changed (so consolidated logs change too). */
async function update(root: string, workers: number): Promise<Reindexed> {
  await writeFile(path.join(root, 'logs', `${DATES[6]}.md`), `${await readFile(path.join(root, 'logs', `${DATES[6]}.md`), 'utf8')}## 10:00 · cli\n- [fact] A late ferry to Porto #travel ^f-9900000001\n`);
  await writeFile(path.join(root, '2_Areas/Page 1.md'), '# Page 1\n\n- Rewritten: only the cello now.\n');
  await writeFile(path.join(root, '2_Areas/New page.md'), `# New\n\n- Cites [[${DATES[1]}#^${factId(1, 5)}]] and the garden.\n`);
  await rm(path.join(root, '2_Areas/Page 2.md'));
  return runJson<Reindexed>(['--vault', root, 'reindex'], { env: { VAULTKEEPER_INDEX_WORKERS: String(workers) } });
}

async function state(root: string): Promise<{ rows: Array<Record<string, unknown>>; manifest: string }> {
  return { rows: await dumpTable(root), manifest: await readFile(path.join(root, '.vaultkeeper/index-rows.json'), 'utf8') };
}

describe('projection workers', () => {
  it('give the rows, their table order and the row hashes that one thread gives, on a rebuild and an update', async () => {
    const alone = await build(0);
    expect(alone.result.workers).toBe(0);
    expect(alone.result.rows).toBeGreaterThan(1_000);
    const expected = await state(alone.root);
    expect(expected.rows).toHaveLength(alone.result.rows);

    for (const workers of [1, 2]) {
      const pooled = await build(workers);
      expect(pooled.result.workers).toBe(workers);
      const actual = await state(pooled.root);
      expect(actual.rows.map((row) => row.key)).toEqual(expected.rows.map((row) => row.key));
      expect(actual.rows).toEqual(expected.rows);
      expect(actual.manifest).toBe(expected.manifest);
    }

    // An update: rows of changed files replace theirs, the rest stay; both ways alike (the pool forced for this small pass).
    const updatedAlone = await update(alone.root, 0);
    const pooled = await build(1);
    const updatedPooled = await update(pooled.root, 1);
    expect(updatedPooled.workers).toBe(1);
    expect(updatedPooled).toEqual({ ...updatedAlone, workers: 1, ms: updatedPooled.ms });
    const after = await state(alone.root);
    expect(after.rows.filter((row) => String(row.content).startsWith('A late ferry to Porto'))).toHaveLength(1);
    expect(await state(pooled.root)).toEqual(after);
  }, 120_000);
});
