/**
 * DESIGN §9: a crash at any point leaves the vault consistent; at worst the last batch is redone.
 * A dream killed with SIGKILL while its model is still thinking leaves the vault as it was, and the
 * next run consolidates the same batch.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { CLI, runJson } from '../helpers/cli.js';
import { call, tools, useFakeLlm } from '../helpers/fake-llm.js';
import { useTempDir } from '../helpers/tmp.js';
import { hashTree } from '../helpers/tree.js';

const tempDir = useTempDir();
const fakeLlm = useFakeLlm();

describe('a dream killed mid-run', () => {
  it('leaves the vault untouched, and the next run redoes the batch', async () => {
    // The model writes a page, then hangs: the run is killed while its work sits in the scratch tree.
    const llm = await fakeLlm([
      tools(call('read_log', { date: '2026-06-01' })),
      tools(call('write_page', { path: '2_Areas/Tea.md', content: '# Tea\n\n- Drinks green tea [[2026-06-01#^PLACEHOLDER]]\n' })),
      { text: 'thinking…', delayMs: 60_000 },
    ]);
    const root = path.join(await tempDir(), 'vault');
    await runJson(['init', root]);
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), `index:\n  embedder: none\nllm:\n  base_url: ${llm.baseUrl}\n  model: fake-model\n`);
    execFileSync('git', ['commit', '-qam', 'person: an LLM'], { cwd: root });
    await runJson(['--vault', root, 'remember', 'Drinks green tea', '-t', 'tea', '--date', '2026-06-01']);
    const before = await hashTree(root);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });

    const child = spawn(process.execPath, [CLI, '--vault', root, 'dream', '--force'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const deadline = Date.now() + 30_000;
    while (llm.requests.length < 3) {
      if (Date.now() > deadline) throw new Error('the dream never reached the model');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));

    expect(await hashTree(root)).toEqual(before); // no page, no watermark, nothing
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' })).toBe(head);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' })).toBe('');
    expect((await readJournal(root)).watermark).toBeNull();

    // The next run (offline here) redoes the same batch from a clean scratch tree: the dead run's page is gone from it.
    const redo = await runJson<{ status: string; batch: { from: string; to: string } }>(['--vault', root, 'dream', '--force', '--offline']);
    expect(redo).toMatchObject({ status: 'ok', batch: { from: '2026-06-01', to: '2026-06-01' } });
    // One #tea fact is too little for a page of its own: it joins its category's page.
    expect(await readFile(path.join(root, '2_Areas/General.md'), 'utf8')).toMatch(/Drinks green tea \[\[2026-06-01#\^f-/);
    // The run that went through keeps its scratch tree for the next (git/worktree.ts checkoutScratch): the vault and it, no other.
    const trees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: root, encoding: 'utf8' }).split('\n').filter((l) => l.startsWith('worktree '));
    expect(trees.map((l) => path.relative(root, l.slice('worktree '.length)))).toEqual(['', '.vaultkeeper/worktrees/scratch']);
    await expect(readFile(path.join(root, '.vaultkeeper/worktrees/scratch/2_Areas/Tea.md'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
