/** Writes measured results into docs/benchmarks.md between markers, leaving the rest of the page alone. */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file holding package.json (bench/ or dist-bench/bench/). */
export const REPO_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(dir: string): string {
  if (existsSync(path.join(dir, 'package.json'))) return dir;
  const parent = path.dirname(dir);
  return parent === dir ? process.cwd() : findRoot(parent);
}
export const BENCHMARKS_DOC = path.join(REPO_ROOT, 'docs', 'benchmarks.md');

const NEW_DOC = '# Benchmarks\n\nMeasured figures, written by `npm run bench` and `npm run eval`; rerun them to refresh.\n';

/** `doc` with the text between `<!-- name:start -->` and `<!-- name:end -->` replaced (appended when missing). */
export function replaceSection(doc: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  const from = doc.indexOf(start);
  const to = from === -1 ? -1 : doc.indexOf(end, from);
  if (from !== -1 && to !== -1) return `${doc.slice(0, from)}${block}${doc.slice(to + end.length)}`;
  const base = doc.trimEnd();
  return `${base === '' ? NEW_DOC.trimEnd() : base}\n\n${block}\n`;
}

export async function writeSection(file: string, name: string, body: string): Promise<void> {
  let doc = '';
  try {
    doc = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, replaceSection(doc, name, body));
}

export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}
