/**
 * `vaultkeeper doctor`: reports what would surprise a person later — lines in logs that are not facts,
 * config problems, edits not committed. Each check is a function; later stages add theirs.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig, CONFIG_FILE, type Config } from '../core/config.js';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { isRepo, uncommittedChanges } from '../git/audit.js';
import { LOGS_DIR, listLogDates, logRelPath, readLog } from '../logs/factlog.js';
import { readTombstones, TOMBSTONES_FILE } from '../tombstones/tombstones.js';
import { checkGitRepository } from './git-checks.js';
import { checkIndex } from './index-checks.js';
import { checkPages } from './page-checks.js';
import { isError, type Check, type Problem } from './problem.js';

export interface DoctorReport {
  /** False when a problem is an error (a warning or a note leaves the vault healthy). */
  ok: boolean;
  problems: Problem[];
}

export type { Check, DoctorInput, Problem, Severity } from './problem.js';
export { isError } from './problem.js';

const problem = (code: string, message: string, where: { path?: string; line?: number } = {}): Problem => ({
  code,
  path: where.path ?? null,
  line: where.line ?? null,
  message,
});

const checkLogs: Check = async ({ root }) => {
  const problems: Problem[] = [];
  const names = await readdir(path.join(root, LOGS_DIR)).catch(() => [] as string[]);
  const dates = new Set(await listLogDates(root));
  for (const name of names) {
    if (name.startsWith('.') || dates.has(name.replace(/\.md$/, ''))) continue;
    problems.push(problem('LOG_NAME', `not a daily log name (YYYY-MM-DD.md); its lines are not read as facts`, { path: `${LOGS_DIR}/${name}` }));
  }
  for (const date of dates) {
    const parsed = await readLog(root, date);
    for (const skipped of parsed.skipped) {
      problems.push(problem('LOG_LINE', `${skipped.reason}: ${skipped.excerpt}`, { path: logRelPath(date), line: skipped.line }));
    }
    const repeated = new Set(parsed.skipped.map((s) => s.line));
    for (const fact of parsed.facts) {
      if (fact.explicitId || repeated.has(fact.line)) continue;
      problems.push(
        problem('LOG_NO_ID', `fact line without ^id: pages cite it as [[${date}#^${fact.id}]], a block Obsidian cannot find; \`vaultkeeper doctor --fix\` appends it`, {
          path: logRelPath(date),
          line: fact.line,
        }),
      );
    }
  }
  return problems;
};

const checkTombstones: Check = async ({ root }) => {
  const set = await readTombstones(root);
  return set.badLines.map((line) => problem('TOMBSTONE_LINE', 'not a valid tombstone (JSON with id, text, at): writers stop until `vaultkeeper doctor --fix` restores it', { path: TOMBSTONES_FILE, line }));
};

const checkGit: Check = async ({ root }) => {
  if (!(await isRepo(root))) {
    return [problem('NO_GIT', 'the vault is not a git repository, so changes have no audit trail; run `git init` in it')];
  }
  const changes = await uncommittedChanges(root);
  return changes.map((change) =>
    problem('UNCOMMITTED', `${change.status === '??' ? 'new file' : 'edited'} and not committed; the next dream commits it as a snapshot, or run \`git commit\``, {
      path: change.path,
    }),
  );
};

export const CHECKS: readonly Check[] = [checkLogs, checkTombstones, checkGit, checkPages, checkIndex, checkGitRepository];

export async function runDoctor(root: string, env: NodeJS.ProcessEnv = process.env, checks: readonly Check[] = CHECKS): Promise<DoctorReport> {
  const problems: Problem[] = [];
  let config: Config | null = null;
  try {
    config = await loadConfig(root, env);
  } catch (error) {
    if (!(error instanceof VaultkeeperError)) throw error;
    problems.push(problem('CONFIG', error.message, { path: CONFIG_FILE }));
  }
  for (const check of checks) {
    try {
      problems.push(...(await check({ root, config })));
    } catch (error) {
      problems.push(problem('CHECK_FAILED', `a check could not run: ${errorMessage(error)}`));
    }
  }
  return { ok: !problems.some(isError), problems };
}
