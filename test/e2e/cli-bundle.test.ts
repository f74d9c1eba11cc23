/**
 * The CLI ships as a bundle (dist/bin/, scripts/bundle-cli.mjs): it must answer as the compiled modules do,
 * and a search answered in process must load its one chunk and LanceDB, not the packages other commands use.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { runListingModules } from '../helpers/module-list.js';
import { SEARCH_VAULT_FILES } from '../helpers/search-vault.js';
import { writeTree } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';

const COMPILED = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));


describe('the CLI bundle', () => {
  let root: string;
  let dir: string;
  // One vault for every test here (useTempDir's folders go after each test).
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vk-test-'));
    root = await initVault(dir);
    await writeTree(root, SEARCH_VAULT_FILES);
    const first = await runCli(['--vault', root, 'reindex', '--json']);
    expect(first.code, first.stderr).toBe(0);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is the package bin', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string> };
    expect(path.resolve(fileURLToPath(new URL('../..', import.meta.url)), pkg.bin.vaultkeeper!)).toBe(CLI);
  });

  it('prints the same search output as the compiled modules, as JSON and as text', async () => {
    const queries = [
      ['coffee'],
      ['how to publish a site'],
      ['coffee', '--kind', 'page'],
      ['home city', '--category', 'fact', '-k', '3'],
      ['coffee', '--tag', 'coffee', '--max-chars', '40'],
      ['"morning coffee"'],
    ];
    for (const query of queries) {
      for (const format of [['--json'], []]) {
        const args = ['--vault', root, 'search', ...query, ...format];
        const bundled = await runCli(args);
        const compiled = await runCli(args, { script: COMPILED });
        expect(bundled.code, bundled.stderr).toBe(0);
        expect(bundled.stdout.length).toBeGreaterThan(0);
        expect(bundled.stdout, query.join(' ')).toBe(compiled.stdout);
      }
    }
  });

  it('loads only its search chunk and LanceDB for a search answered in process (the cached config: no yaml, no zod)', async () => {
    const list = path.join(dir, 'modules.txt');
    // The compiled modules' run above keyed the config cache to their validator: the first run here re-keys it.
    await runListingModules(CLI, ['--vault', root, 'search', 'coffee', '--json'], dir, list);
    const run = await runListingModules(CLI, ['--vault', root, 'search', 'coffee', '--json'], dir, list);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    const packages = new Set(run.loaded.filter((url) => url.includes('/node_modules/')).map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)![1]!));
    // LanceDB's native binding and its binary, nothing else (lance-read.ts): not its JavaScript, nor what that requires
    // (apache-arrow, reflect-metadata), nor anything of another command's. The rows are read without Arrow.
    expect([...packages].filter((name) => !name.startsWith('@lancedb/'))).toEqual([]);
    const lance = run.loaded.filter((url) => url.includes('/node_modules/@lancedb/lancedb/')).map((url) => path.basename(url));
    expect(lance).toEqual(['native.js']);
    const ours = run.loaded.filter((url) => url.startsWith('file:') && !url.includes('/node_modules/'));
    // Nothing from the compiled modules: the bundle is whole. The chunk count is the point of the bundle.
    expect(ours.every((url) => url.includes('/dist/bin/')), ours.join('\n')).toBe(true);
    expect(ours.length).toBeLessThan(16);
    expect(ours.some((url) => /\/dist\/bin\/search-[\w-]+\.js$/.test(url))).toBe(true);
  });

  it("loads neither node:child_process nor node:net for a search answered in process (commander's spawn, the daemon's socket and stdout's pipe are all made only when used)", async () => {
    const list = path.join(dir, 'builtins.txt');
    // stdout is a pipe here, as it is for a script: Node makes it a socket (node:net) when process.stdout is first read.
    const run = await runListingModules(CLI, ['--vault', root, 'search', 'coffee', '--json'], dir, list, { esmHooks: false });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    const builtins = run.loaded.filter((line) => line.startsWith('node:'));
    // The listing works: modules a search needs are there.
    expect(builtins).toEqual(expect.arrayContaining(['node:fs', 'node:path', 'node:crypto']));
    expect(builtins.filter((name) => ['node:child_process', 'node:net', 'node:tty'].includes(name))).toEqual([]);
  });

  it('loads no zod for a remember or a rebuild (its modules cost either ~50 ms), no LanceDB or yaml for a remember, and the page parser from its chunk', async () => {
    const list = path.join(dir, 'modules.txt');
    const packagesOf = (loaded: readonly string[]): Set<string> =>
      new Set(loaded.filter((url) => url.includes('/node_modules/')).map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)![1]!));
    // The first run keys the config cache to this entry's validator (it loads yaml and zod then); the second is the everyday one.
    await runListingModules(CLI, ['--vault', root, 'remember', 'Tea at four'], dir, list);
    const remember = await runListingModules(CLI, ['--vault', root, 'remember', 'Tea at five'], dir, list);
    expect(remember.code).toBe(0);
    const remembered = packagesOf(remember.loaded);
    expect(remembered).toContain('proper-lockfile'); // the run took its lock: the module list is the whole command's
    for (const name of ['zod', '@lancedb/lancedb', 'yaml']) expect(remembered, name).not.toContain(name);

    const rebuild = await runListingModules(CLI, ['--vault', root, 'reindex', '--clear', '--json'], dir, list);
    expect(rebuild.code).toBe(0);
    expect((JSON.parse(rebuild.stdout) as { rows: number }).rows).toBeGreaterThan(0);
    const rebuilt = packagesOf(rebuild.loaded);
    expect(rebuilt).toContain('@lancedb/lancedb');
    // A write loads Arrow, as its one-file build: not the usual build's two hundred files.
    const arrowFiles = rebuild.loaded.filter((url) => url.includes('/node_modules/apache-arrow/'));
    expect(arrowFiles.some((url) => url.endsWith('/Arrow.esnext.min.js')), arrowFiles.join('\n')).toBe(true);
    expect(arrowFiles.length, arrowFiles.join('\n')).toBe(2);
    expect(rebuilt).not.toContain('zod');
    // markdown-it, what it imports, and js-yaml are bundled into the chunks (scripts/bundle-cli.mjs): none loads from node_modules.
    for (const name of ['markdown-it', 'mdurl', 'uc.micro', 'entities', 'linkify-it', 'punycode.js', 'js-yaml']) expect(rebuilt, name).not.toContain(name);
  });

  it('loads no yaml for a forget whose page scan rewrites a frontmatter flow list (js-yaml, bundled, reads it)', async () => {
    const list = path.join(dir, 'modules.txt');
    await writeTree(root, { '2_Areas/tea.md': '---\ntags: [tea, afternoon]\naliases: [Tea time, "Tea at six with lemon"]\n---\n# Tea\n\n- Tea at six with lemon\n- Green tea in the morning\n' });
    // The first run keys the config cache to this entry's validator (it loads yaml then); the second is the everyday one.
    await runListingModules(CLI, ['--vault', root, 'remember', 'Tea at six with lemon'], dir, list);
    const forget = await runListingModules(CLI, ['--vault', root, 'forget', '--match', 'tea at six with lemon', '--json'], dir, list);
    expect(forget.code).toBe(0);
    expect((JSON.parse(forget.stdout) as { pages: Array<{ path: string }> }).pages).toEqual([expect.objectContaining({ path: '2_Areas/tea.md' })]);
    expect(await readFile(path.join(root, '2_Areas/tea.md'), 'utf8')).toBe('---\ntags: [tea, afternoon]\naliases: ["Tea time"]\n---\n# Tea\n\n- Green tea in the morning\n');
    expect(forget.loaded.filter((url) => url.includes('/node_modules/yaml/'))).toEqual([]);
  });

  it('names the TypeScript sources in a --debug stack trace (source maps)', async () => {
    const debug = await runCli(['--vault', root, '--debug', 'forget', 'f-0000000000']);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^\s+at .*src\/[\w/-]+\.ts:\d+:\d+/m);
  });

  it('keeps the config validator as dist/bin/config.js, which the config cache reads to key its entries', async () => {
    const validator = path.join(path.dirname(CLI), 'config.js');
    const mod = (await import(pathToFileURL(validator).href)) as { parseConfigText?: unknown };
    expect(typeof mod.parseConfigText).toBe('function');
  });
});
