/** DESIGN §9: no secret (API key) is ever written into the vault, its logs or its git history. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, listFiles } from '../helpers/vault.js';

const tempDir = useTempDir();
const SECRET = 'sk-test-SECRET';
const OTHER_SECRET = 'sk-test-OTHER-SECRET';

describe('secrets in the environment', () => {
  it('never reach the vault files or git history through init, remember, forget, history or doctor', async () => {
    const env = {
      OPENAI_API_KEY: SECRET,
      VAULTKEEPER_LLM_API_KEY_ENV: 'MY_LLM_KEY',
      MY_LLM_KEY: OTHER_SECRET,
      VAULTKEEPER_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      VAULTKEEPER_LLM_MODEL: 'test-model',
    };
    const root = path.join(await tempDir(), 'vault');
    const outputs: string[] = [];
    const run = async (args: string[], input?: string): Promise<string> => {
      const result = await runCli(args, { cwd: path.dirname(root), env, ...(input === undefined ? {} : { input }) });
      outputs.push(result.stdout, result.stderr);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    await run(['init', root]);
    const remembered = JSON.parse(await run(['--vault', root, 'remember', 'Likes green tea', '-t', 'tea', '--json'])) as { facts: { id: string }[] };
    await run(['--vault', root, 'remember', '--stdin', '--source', 'import'], 'Runs on Sundays\n{"text": "Moves to Porto", "date": "2026-06-10"}\n');
    await run(['--vault', root, 'forget', remembered.facts[0]!.id, '--reason', 'test']);
    await run(['--vault', root, 'forget', '--match', 'Porto']);
    await run(['--vault', root, 'history', '--json']);
    await run(['--vault', root, 'doctor', '--json']);

    const files = await listFiles(root, { includeGit: true });
    expect(files.length).toBeGreaterThan(20);
    for (const rel of files) {
      const bytes = await readFile(path.join(root, rel));
      expect(bytes.includes(SECRET), rel).toBe(false);
      expect(bytes.includes(OTHER_SECRET), rel).toBe(false);
    }
    const log = await git(root, ['log', '-p', '--all', '--format=fuller']);
    expect(log).toContain('Moves to Porto'); // the history really was searched
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(OTHER_SECRET);
    // Every object git holds, uncompressed, including any not reachable from a branch.
    const objects = await git(root, ['cat-file', '--batch-all-objects', '--batch']);
    expect(objects).not.toContain(SECRET);
    for (const output of outputs) expect(output).not.toContain(SECRET);
  });

  it('a key written into config.yaml is refused without being echoed', async () => {
    const root = path.join(await tempDir(), 'vault');
    expect((await runCli(['init', root])).code).toBe(0);
    const configFile = path.join(root, '.vaultkeeper/config.yaml');
    const config = (await readFile(configFile, 'utf8')).replace('api_key_env: OPENAI_API_KEY', `api_key: ${SECRET}`);
    await writeFile(configFile, config);
    for (const args of [['remember', 'x'], ['doctor', '--json'], ['history']]) {
      const result = await runCli(args, { cwd: root });
      expect(result.code).toBe(1);
      expect(`${result.stdout}${result.stderr}`).toMatch(/secrets are never kept in the vault/);
      expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
    }
    expect(await git(root, ['log', '-p', '--all'])).not.toContain(SECRET);
  });
});
