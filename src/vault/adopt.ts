/**
 * `vaultkeeper init --adopt PATH`: makes an existing folder or Obsidian vault a vaultkeeper vault. It adds
 * what the vault needs around a person's notes and never writes over them: logs/, .vaultkeeper/, the
 * zone folders and root files it lacks, and lines of its own at the end of .gitignore. The notes stay byte
 * for byte. An existing git repository is used as it is (only vaultkeeper's files are committed); a new
 * one first records the notes in a snapshot commit, so the dream treats their lines as a person's.
 * `.obsidian/` is left alone unless `obsidianSettings` consents to adding the settings files it lacks.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE, parseConfigText } from '../core/config.js';
import { VaultkeeperError } from '../core/errors.js';
import { withWriteLock } from '../core/lock.js';
import { ADOPTED_SUBJECT } from '../dream/ownership.js';
import { commitPaths, initRepo, isRepo } from '../git/audit.js';
import { LOGS_DIR } from '../logs/factlog.js';
import { confinedPath } from './confine.js';
import { mkdirConfined, writeConfined } from './confined-write.js';
import { TEMPLATE_DIR, writeInitialMemory } from './init.js';
import { isVaultRoot } from './locate.js';

/** Root files the program regenerates: a person's file of that name would be overwritten, so it is a clash. */
const REGENERATED = ['index.md', 'log.md', 'MEMORY.md'];

export interface AdoptOptions {
  /** Add vaultkeeper's Obsidian settings (e.g. daily notes as pages in 3_Personal/Daily/) where `.obsidian/` has none of that name. */
  obsidianSettings?: boolean;
}

export interface AdoptResult {
  root: string;
  /** Files vaultkeeper added (relative paths), .gitignore included when it changed. */
  added: string[];
  /** Template files left out because the person has their own (schema.md, .obsidian settings). */
  kept: string[];
  /** True when the folder was not a git repository and one was created. */
  createdRepo: boolean;
  /** The commit recording the notes as they were (only for a new repository). */
  snapshot: string | null;
  commit: string | null;
}

export async function adoptVault(target: string, options: AdoptOptions = {}): Promise<AdoptResult> {
  const root = path.resolve(target);
  const info = await stat(root).catch(() => null);
  if (info === null || !info.isDirectory()) {
    throw new VaultkeeperError('VK_ADOPT_MISSING', `${root} is not a folder, so there is nothing to adopt`, {
      hint: `check the path, or create a new vault with \`vaultkeeper init ${target}\``,
    });
  }
  if (isVaultRoot(root)) {
    throw new VaultkeeperError('VK_EXISTS', `${root} is already a vaultkeeper vault; nothing was changed`, { hint: 'use it as it is' });
  }
  const plan = await planAdoption(root, options);
  if (plan.clashes.length > 0) {
    throw new VaultkeeperError('VK_ADOPT_CLASH', `cannot adopt ${root}: ${plan.clashes.join('; ')}; nothing was changed`, {
      hint: 'rename or move those files (e.g. "index.md" to "Home.md"), then run `vaultkeeper init --adopt` again',
    });
  }

  const createdRepo = !(await isRepo(root));
  const gitignore = await mergedGitignore(root);
  if (gitignore !== null) await writeConfined(root, '.gitignore', gitignore);
  let snapshot: string | null = null;
  if (createdRepo) {
    await initRepo(root);
    // The notes as they were, before anything of vaultkeeper's: a person's words for the dream's checks.
    const notes = (await readdir(root)).filter((name) => name !== '.git' && name !== '.gitignore');
    if (notes.length > 0) {
      // Everything but .gitignore (whose new lines are vaultkeeper's), as the merged .gitignore filters it.
      const config = parseConfigText(await readFile(path.join(TEMPLATE_DIR, CONFIG_FILE), 'utf8'), CONFIG_FILE);
      await mkdirConfined(root, '.vaultkeeper');
      snapshot = await withWriteLock(root, (lock) =>
        commitPaths(lock, config, {
          op: 'snapshot',
          subject: 'snapshot: the notes as they were when vaultkeeper adopted the folder',
          body: 'Committed unchanged, so history starts from what a person wrote.',
          paths: ['.', ':(exclude).gitignore'],
        }),
      );
    }
  }
  for (const rel of plan.copies) {
    // A person's folder may hold links: a link on the way to a file vaultkeeper adds is refused.
    const file = await confinedPath(root, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, await readFile(path.join(TEMPLATE_DIR, rel)), { flag: 'wx' });
  }
  const added = [...plan.copies, ...(gitignore === null ? [] : ['.gitignore'])].sort();
  const config = parseConfigText(await readFile(path.join(root, CONFIG_FILE), 'utf8'), CONFIG_FILE);
  if (plan.copies.includes('MEMORY.md')) await writeInitialMemory(root, config);
  const commit = await withWriteLock(root, (lock) =>
    commitPaths(lock, config, {
      op: 'init',
      subject: ADOPTED_SUBJECT,
      body: `Added around the existing notes, none of which changed:\n\n${added.map((p) => `+ ${p}`).join('\n')}`,
      paths: added,
    }),
  );
  return { root, added, kept: plan.kept, createdRepo, snapshot, commit };
}

interface Plan {
  copies: string[];
  kept: string[];
  clashes: string[];
}

async function planAdoption(root: string, options: AdoptOptions): Promise<Plan> {
  const plan: Plan = { copies: [], kept: [], clashes: [] };
  const logs = await readdir(path.join(root, LOGS_DIR)).catch(() => null);
  if (logs !== null && logs.some((name) => !name.startsWith('.'))) {
    plan.clashes.push(`${LOGS_DIR}/ exists and holds files, but vaultkeeper keeps its own daily fact logs there`);
  }
  for (const name of REGENERATED) {
    if (await exists(path.join(root, name))) plan.clashes.push(`${name} exists, and vaultkeeper regenerates that file`);
  }
  for (const rel of await templateFiles()) {
    if (rel === 'gitignore') continue;
    const top = rel.split('/')[0]!;
    if (top === '.obsidian') {
      if (!options.obsidianSettings) continue;
      if (await exists(path.join(root, rel))) plan.kept.push(rel);
      else plan.copies.push(rel);
      continue;
    }
    // A zone folder the person already has is theirs: nothing goes into it.
    if (rel.endsWith('/.gitkeep') && top !== LOGS_DIR && (await exists(path.join(root, top)))) continue;
    if (await exists(path.join(root, rel))) {
      if (!REGENERATED.includes(rel)) plan.kept.push(rel);
      continue;
    }
    plan.copies.push(rel);
  }
  return plan;
}

/** The person's .gitignore with the template's lines it lacks appended, or null when it needs none. */
async function mergedGitignore(root: string): Promise<string | null> {
  const ours = (await readFile(path.join(TEMPLATE_DIR, 'gitignore'), 'utf8')).split('\n').filter((line) => line.trim() !== '');
  const theirs = await readFile(path.join(root, '.gitignore'), 'utf8').catch(() => null);
  if (theirs === null) return `${ours.join('\n')}\n`;
  const present = new Set(theirs.split(/\r?\n/).map((line) => line.trim()));
  const missing = ours.filter((line) => !line.startsWith('#') && !present.has(line.trim()));
  if (missing.length === 0) return null;
  const separator = theirs === '' || theirs.endsWith('\n') ? '' : '\n';
  return `${theirs}${separator}\n# added by vaultkeeper init --adopt: its derived and local files\n${missing.join('\n')}\n`;
}

async function templateFiles(dir = TEMPLATE_DIR, prefix = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) files.push(...(await templateFiles(path.join(dir, entry.name), `${rel}/`)));
    else files.push(rel);
  }
  return files;
}

function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
