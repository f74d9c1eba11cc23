/**
 * The cold-build columns of the scaling table (search-scale.ts): a rebuild by the CLI (`reindex --clear`) and qmd's
 * cold `collection add` over the same files, wall time, CPU and peak RSS (GNU time). A build of 1M facts takes
 * ~10 minutes each side on this machine, so each figure is kept beside the vault it was measured on
 * (`.scale-build.json`, with its date and commit) and a later run reads it back; `--rebuild` measures again, on a
 * copy of the vault, so the vault the searches read is never rebuilt under them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCli, runProgram, type ChildResult } from './child.js';
import { REPO_ROOT, progress } from './report.js';

/** One build, as measured. */
export interface BuildFigure {
  ms: number;
  rssBytes: number | null;
  /** User + system CPU (GNU time), null without it. */
  cpuMs: number | null;
  /** When it ran (ISO) and the load average then: a recorded figure says how old it is. */
  at: string;
  load: number;
  /** The commit the CLI was built from (ours), or 'qmd'. */
  by: string;
}

export interface ScaleBuild {
  ours: BuildFigure | null;
  qmd: BuildFigure | null;
}

const RECORD = '.scale-build.json';

/** What an earlier run measured for this vault, if anything. */
export async function readBuild(root: string): Promise<ScaleBuild> {
  try {
    const kept = JSON.parse(await readFile(path.join(root, RECORD), 'utf8')) as Partial<ScaleBuild>;
    return { ours: kept.ours ?? null, qmd: kept.qmd ?? null };
  } catch {
    return { ours: null, qmd: null };
  }
}

export async function recordBuild(root: string, side: keyof ScaleBuild, figure: BuildFigure): Promise<void> {
  const kept = await readBuild(root);
  kept[side] = figure;
  await writeFile(path.join(root, RECORD), `${JSON.stringify(kept, null, 2)}\n`);
}

/** A measured child's figures (GNU time's report in its stderr). */
export function figureOf(result: ChildResult, by: string): BuildFigure {
  const seconds = (label: string): number | null => {
    const match = new RegExp(`${label} time \\(seconds\\):\\s*([\\d.]+)`).exec(result.stderr);
    return match === null ? null : Number(match[1]);
  };
  const user = seconds('User');
  const system = seconds('System');
  return {
    ms: result.wallMs,
    rssBytes: result.maxRssBytes,
    cpuMs: user === null || system === null ? null : (user + system) * 1000,
    at: new Date().toISOString(),
    load: Number(os.loadavg()[0]!.toFixed(1)),
    by,
  };
}

/** The commit the measured CLI was built from (the working tree's HEAD). */
export function commitOf(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** The environment qmd runs in: its own HOME under `home`, so its index and config stay there. */
export function qmdEnv(env: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  return { ...env, HOME: home, XDG_CACHE_HOME: path.join(home, 'cache'), XDG_CONFIG_HOME: path.join(home, 'config') };
}

/** qmd's cold `collection add` of `notes` into a fresh `home`, measured. */
export async function qmdColdBuild(notes: string, home: string, env: NodeJS.ProcessEnv): Promise<BuildFigure> {
  await rm(home, { recursive: true, force: true });
  await mkdir(home, { recursive: true });
  const result = await runProgram(process.env.QMD_BIN!, ['collection', 'add', notes, '--name', 'notes'], { env: qmdEnv(env, home), measureRss: true });
  if (result.code !== 0) throw new Error(`qmd collection add failed: ${result.stderr.trim().split('\n').at(-1) ?? ''}`);
  return figureOf(result, 'qmd');
}

/**
 * Both builds again for the vault at `root`: ours on a copy (`cp -a`, removed after), qmd's into a scratch home;
 * `qmdFirst` alternates the order from one size to the next. Each figure is recorded beside the vault.
 */
export async function measureBuilds(root: string, env: NodeJS.ProcessEnv, options: { qmd: boolean; qmdFirst: boolean }): Promise<ScaleBuild> {
  const copy = `${root}-rebuild`;
  const qmdHome = `${root}-rebuild-qmd`;
  const sides: Array<() => Promise<void>> = [
    async () => {
      progress(`bench: scale: rebuilding a copy of ${path.basename(root)}`);
      await rm(copy, { recursive: true, force: true });
      execFileSync('cp', ['-a', root, copy]);
      try {
        const result = await runCli(['--vault', copy, 'reindex', '--clear', '--json'], { env, measureRss: true });
        if (result.code !== 0) throw new Error(`reindex --clear failed: ${result.stderr.trim().split('\n').at(-1) ?? ''}`);
        await recordBuild(root, 'ours', figureOf(result, commitOf()));
      } finally {
        await rm(copy, { recursive: true, force: true });
      }
    },
    async () => {
      if (!options.qmd) return;
      progress(`bench: scale: qmd cold build of ${path.basename(root)}`);
      try {
        await recordBuild(root, 'qmd', await qmdColdBuild(root, qmdHome, env));
      } finally {
        if (existsSync(qmdHome)) await rm(qmdHome, { recursive: true, force: true });
      }
    },
  ];
  if (options.qmdFirst) sides.reverse();
  for (const side of sides) await side();
  return readBuild(root);
}
