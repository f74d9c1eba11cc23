/**
 * parsePage's CPU over every page of some folders, and one digest of every ParsedPage, to compare two
 * builds (docs/benchmarks.md, "parsing a page"): run it alternately against each build's dist/. Prints one
 * JSON line: files, the CPU of each pass (the first is the cold one a build pays), the digest.
 *   node dist-bench/bench/parse-pages.js [--dist DIR] [--passes N] [FOLDER…]
 * FOLDER defaults to the shared Dendron notes; a folder named node_modules means the READMEs of its packages.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { ParsedPage } from '#src/pages/parse.js';

const DEFAULT_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
const README_RE = /^(?:@[^/]+\/)?[^/@]+\/readme\.md$/iu;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { dist: { type: 'string', default: DEFAULT_DIST }, passes: { type: 'string', default: '1' } },
});
const folders = positionals.length > 0 ? positionals : [path.resolve('..', 'shared', 'data', 'dendron-vault')];

const files: Array<[string, Buffer]> = [];
for (const folder of folders) {
  const names = readdirSync(folder, { recursive: true }).map(String).sort();
  const wanted = folder.endsWith('node_modules') ? names.filter((name) => README_RE.test(name)) : names.filter((name) => name.endsWith('.md') && !name.includes('node_modules'));
  for (const name of wanted) files.push([path.join(folder, name), readFileSync(path.join(folder, name))]);
}

const { parsePage } = (await import(pathToFileURL(path.join(path.resolve(values.dist), 'pages', 'parse.js')).href)) as { parsePage: (relPath: string, content: Uint8Array) => ParsedPage };
const cpu: number[] = [];
let pages: ParsedPage[] = [];
for (let pass = 0; pass < Number(values.passes); pass++) {
  const start = process.cpuUsage();
  pages = files.map(([file, bytes]) => parsePage(file, bytes));
  const used = process.cpuUsage(start);
  cpu.push(Math.round((used.user + used.system) / 1000));
}
const digest = createHash('sha256');
// NaN and infinities from frontmatter would read as null in JSON.
for (const page of pages) digest.update(JSON.stringify(page, (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? String(value) : value)));
console.log(JSON.stringify({ dist: values.dist, files: files.length, cpuMs: cpu, digest: digest.digest('hex').slice(0, 16) }));
