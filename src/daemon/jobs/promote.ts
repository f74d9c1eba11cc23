/**
 * Promotion into core memory: regenerates MEMORY.md from the pages' current values and what searches
 * recall most (the dream writes it too, but recall keeps moving between dreams), and commits it only
 * when a line entered or left.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { withWriteLock } from '../../core/lock.js';
import { writeMemory } from '../../dream/memory.js';
import { localStamp } from '../../core/clock.js';
import { readDreamState } from '../../dream/state.js';
import { commitPaths } from '../../git/audit.js';
import type { Vault } from '../../vault/vault.js';

const MEMORY_FILE = 'MEMORY.md';

export interface PromoteResult {
  changed: boolean;
  commit: string | null;
}

export async function promoteMemory(vault: Vault, options: { now?: Date } = {}): Promise<PromoteResult> {
  const now = options.now ?? new Date();
  const file = path.join(vault.root, MEMORY_FILE);
  return withWriteLock(vault.root, async (lock) => {
    const before = await readFile(file, 'utf8').catch(() => '');
    // Keep the header's run as it is, so a regeneration with nothing new is byte-identical.
    const run = /\(last: ([^)\s]+)\)/.exec(before)?.[1] ?? (await readDreamState(vault.root)).last_run ?? 'none';
    await writeMemory(vault.root, vault.root, run, { maxLines: vault.ctx.config.dream.memory_lines, today: localStamp(now, vault.ctx.timeZone).date });
    const after = await readFile(file, 'utf8');
    if (after === before) return { changed: false, commit: null };
    const entries = (text: string): Set<string> => new Set(text.split('\n').filter((l) => l.startsWith('- ')));
    const [was, is] = [entries(before), entries(after)];
    const entered = [...is].filter((l) => !was.has(l));
    const left = [...was].filter((l) => !is.has(l));
    const commit = await commitPaths(lock, vault.ctx.config, {
      op: 'promote',
      subject: entered.length + left.length === 0 ? 'promote: MEMORY.md regenerated (layout only)' : `promote: MEMORY.md, ${entered.length} lines in, ${left.length} out`,
      body: [
        `Regenerated core memory from the pages' current values and what searches recalled most (${now.toISOString()}).`,
        '',
        ...entered.map((l) => `+ ${l.slice(2)}`),
        ...left.map((l) => `- ${l.slice(2)}`),
      ].join('\n'),
      paths: [MEMORY_FILE],
    });
    return { changed: true, commit };
  });
}
