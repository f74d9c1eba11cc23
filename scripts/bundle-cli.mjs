/**
 * Bundles the command line (src/cli/main.ts) into dist/bin/, the package's `bin` (docs/ARCHITECTURE.md,
 * "The CLI bundle"). Every ES module file costs Node a resolve, a read and a compile: a CLI search loaded
 * some forty of ours before LanceDB's. Here the modules such a search loads when no daemon answers are one
 * chunk, each command's own code stays in chunks loaded only when that command runs, and packages stay
 * external (installed beside the package as usual) except commander, stopword and porter2, which are small and
 * loaded by every command or by search, and the page parser's markdown-it (with the five packages it imports) and
 * js-yaml, which every rebuild loads: some thirty files that took a cold Dendron build ~5% of its wall time to
 * resolve and read (docs/benchmarks.md). `npm run build` runs this after tsc; dist/ keeps the compiled
 * modules for the library API.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RolldownMagicString, rolldown } from 'rolldown';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const OUT = path.join(ROOT, 'dist', 'bin');
const BUNDLED_PACKAGES = new Set([
  'commander', 'stopword', 'porter2',
  'markdown-it', 'mdurl', 'uc.micro', 'entities', 'linkify-it', 'punycode.js', 'js-yaml',
]);
/**
 * What a search loads in process: these modules and everything they import statically form the chunk.
 * A module added here must import no package statically (checked below), or every search would load it.
 */
const SEARCH_PATH = [
  'src/vault/vault.ts',
  'src/vault/search-modules.ts',
  'src/indexer/search.ts',
  'src/indexer/store.ts',
  'src/indexer/fresh.ts',
  'src/indexer/location.ts',
  'src/embed/load.ts',
].map((rel) => path.join(ROOT, rel));
/**
 * The search command and what it loads before it knows whether the daemon answers: a chunk of its own, so a
 * search the daemon answers does not compile the in-process chunk nor load what it imports (node:crypto
 * among them; docs/benchmarks.md). Same rule: no package imported statically.
 */
const SEARCH_COMMAND = [
  'src/cli/commands/search.ts',
  'src/cli/ask-daemon.ts',
  'src/daemon/query-protocol.ts',
  'src/vault/locate.ts',
  'src/cli/output.ts',
  'src/core/errors.ts',
  // Every command checks its failpoints, and the index's manifest writer has one: here, or the search chunk (which
  // captures what its modules import) would be loaded by every command for it.
  'src/core/failpoint.ts',
].map((rel) => path.join(ROOT, rel));

/**
 * commander requires node:child_process when it loads, for subcommands that are executables of their own, which this
 * CLI has none of; child_process brings node:net and the stream modules with it: ~2.5 ms of every command's start
 * (docs/benchmarks.md). Required when commander would spawn, instead.
 */
const commanderSpawnsLazily = {
  name: 'commander-spawns-lazily',
  transform(code, id) {
    if (!id.endsWith(path.join('node_modules', 'commander', 'lib', 'command.js'))) return null;
    const eager = "const childProcess = require('node:child_process');";
    if (!code.includes(eager)) throw new Error('bundle-cli: commander no longer requires node:child_process as this expects; see commanderSpawnsLazily');
    const lazy = new RolldownMagicString(code);
    lazy.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };");
    return { code: lazy.toString(), map: lazy.generateMap({ hires: true, source: id }).toString() };
  },
};

const packageOf = (id) => (id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]);
const isBare = (id) => !id.startsWith('.') && !path.isAbsolute(id) && !id.startsWith('\0') && !id.startsWith('node:');

await rm(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  // config.ts is an entry of its own so it keeps its name: the config cache keys on the validator's bytes.
  // The projection worker too: the indexer starts it by file name, beside the chunk that imports it (project-pool.ts).
  input: {
    vaultkeeper: path.join(ROOT, 'src/cli/main.ts'),
    config: path.join(ROOT, 'src/core/config.ts'),
    'project-worker': path.join(ROOT, 'src/indexer/project-worker.ts'),
  },
  platform: 'node',
  plugins: [commanderSpawnsLazily],
  tsconfig: path.join(ROOT, 'tsconfig.build.json'),
  external: (id) => isBare(id) && !BUNDLED_PACKAGES.has(packageOf(id)),
  onLog(level, log) {
    // A module imported lazily in one place and statically in another is expected (errors.ts); anything else fails.
    if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
    throw new Error(`bundle-cli: ${level}: ${log.message}`);
  },
});
const { output } = await bundle.write({
  dir: OUT,
  // CommonJS: Node 20 starts a command some 5 ms sooner without its ES module loader, and require()s a chunk
  // synchronously (docs/benchmarks.md). The files keep their .js names: a package.json in dist/bin/ says what they are.
  format: 'cjs',
  sourcemap: true,
  entryFileNames: '[name].js',
  // One folder, so a module's import.meta.url is at the same depth as in dist/ (config-cache.ts reads ./config.js).
  chunkFileNames: '[name]-[hash].js',
  codeSplitting: {
    groups: [
      { name: 'search-command', test: (id) => SEARCH_COMMAND.includes(id), priority: 2 },
      { name: 'search', test: (id) => SEARCH_PATH.includes(id), priority: 1 },
    ],
  },
});
await bundle.close();
await writeFile(path.join(OUT, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

// A package either search chunk imports statically would load on every search: refuse to build it.
const chunks = new Map(output.filter((o) => o.type === 'chunk').map((c) => [c.fileName, c]));
for (const name of ['search-command', 'search']) {
  const start = [...chunks.values()].find((c) => c.name === name);
  if (start === undefined) throw new Error(`bundle-cli: no ${name} chunk was made`);
  const seen = new Set();
  for (const pending = [start.fileName]; pending.length > 0; ) {
    const chunk = chunks.get(pending.pop());
    for (const id of chunk.imports) {
      if (chunks.has(id)) {
        if (!seen.has(id)) pending.push(id);
        seen.add(id);
      } else if (!id.startsWith('node:')) {
        throw new Error(`bundle-cli: the ${name} chunk imports ${id} statically (through ${chunk.fileName}); import it lazily`);
      }
    }
  }
}
