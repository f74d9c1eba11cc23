/** Runs a CLI entry as a child process and lists every module it loaded: what a command costs to start. */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Runs `file` (a CLI entry) with hooks that list every module it loads into `list`: ES modules as they load
 * (the hook runs on its own thread, so it appends to the file rather than writing to stderr), CommonJS ones
 * (require's cache, the hook itself aside) and Node's own public modules (as `node:name`) at exit. `dir` holds the
 * hooks. Without `esmHooks` only the exit hook runs: registering the others loads node:net and node:stream itself.
 */
export async function runListingModules(
  file: string,
  args: readonly string[],
  dir: string,
  list: string,
  { esmHooks = true }: { esmHooks?: boolean } = {},
): Promise<{ code: number; stdout: string; loaded: string[] }> {
  const loadHook = path.join(dir, 'list-modules-hooks.mjs');
  const esm = path.join(dir, 'list-modules.mjs');
  const cjs = path.join(dir, 'list-modules.cjs');
  await writeFile(loadHook, "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(process.env.VK_MODULE_LIST, `${url}\\n`); return next(url, context); }\n");
  await writeFile(esm, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(loadHook).href)});\n`);
  await writeFile(
    cjs,
    [
      "process.on('exit', () => {",
      '  const append = (line) => require("node:fs").appendFileSync(process.env.VK_MODULE_LIST, `${line}\\n`);',
      '  for (const file of Object.keys(require.cache)) if (file !== __filename) append(`file://${file}`);',
      "  for (const entry of process.moduleLoadList) if (/^NativeModule (?!internal\\/)/.test(entry)) append(`node:${entry.slice('NativeModule '.length)}`);",
      '});',
      '',
    ].join('\n'),
  );
  await writeFile(list, '');
  const run = await new Promise<{ code: number; stdout: string }>((resolve, reject) => {
    const env = { ...process.env, VAULTKEEPER_VAULT: undefined, VK_MODULE_LIST: list };
    const hooks = esmHooks ? ['--import', pathToFileURL(esm).href] : [];
    const child = spawn(process.execPath, [...hooks, '--require', cjs, file, ...args], { stdio: ['ignore', 'pipe', 'ignore'], env });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout }));
  });
  return { ...run, loaded: (await readFile(list, 'utf8')).split('\n').filter((line) => line !== '') };
}
