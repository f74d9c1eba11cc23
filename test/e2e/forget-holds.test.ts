/**
 * Forgetting holds on every path (DESIGN §5–§7), through the built CLI: after `forget`, search leaves out
 * only the page line that cites or repeats the fact (the rest of its section stays findable), at once;
 * and after a dream with either consolidator no page holds a line that cites or repeats it, even when the
 * model writes it back. The only fake is a scripted OpenAI-compatible server on 127.0.0.1.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { runCli, runJson } from '../helpers/cli.js';
import { call, tools, useFakeLlm } from '../helpers/fake-llm.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const D1 = '2025-06-01';
const D2 = '2025-06-02';
const SECRET = 'f-aaaaaaaaa1';
const CELLO = 'f-aaaaaaaaa2';
const NEW = 'f-aaaaaaaaa3';
const LOG1 = `# ${D1}\n\n## 09:00 · cli\n- [fact] Door code is 4711 at the studio #music ^${SECRET}\n- [fact] Plays the cello every Sunday #music ^${CELLO}\n`;
const LOG2 = `# ${D2}\n\n## 09:00 · cli\n- [fact] Bought a new bow for the cello #music ^${NEW}\n`;
const PAGE =
  '---\ntitle: Music\ntype: topic\n---\n# Music\n\n## Practice\n\n' +
  `- Door code is 4711 at the studio [[${D1}#^${SECRET}]]\n` +
  `- Plays the cello every Sunday [[${D1}#^${CELLO}]]\n`;
const JOURNAL = `# Dream journal\n\n- 2025-06-01T03:00:00Z · run r-1 · consolidated ${D1}..${D1} · watermark=${D1}\n`;

interface SearchJson {
  results: Array<{ kind: string; path: string; text: string }>;
}

/** A vault whose D1 is consolidated into a Music page, and D2 pending. */
async function makeVault(env: Record<string, string> = {}): Promise<{ root: string; env: Record<string, string> }> {
  const root = await initVault(await tempDir());
  await writeTree(root, {
    [`logs/${D1}.md`]: LOG1,
    [`logs/${D2}.md`]: LOG2,
    '2_Areas/Music.md': PAGE,
    'log.md': JOURNAL,
    '.vaultkeeper/config.yaml': 'timezone: UTC\nindex:\n  embedder: none\n',
  });
  await git(root, ['add', '--all']);
  await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'notes']);
  return { root, env };
}

async function search(root: string, query: string): Promise<SearchJson['results']> {
  return (await runJson<SearchJson>(['--vault', root, 'search', query])).results;
}

/** Every page line of the vault (wiki pages, MEMORY.md and index.md) that names or cites the forgotten fact. */
async function forgottenLines(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const rel of await readdir(root, { recursive: true })) {
    if (!rel.endsWith('.md') || rel.startsWith('logs') || rel.startsWith('.')) continue;
    for (const line of (await readFile(path.join(root, rel), 'utf8')).split('\n')) {
      if (line.includes(SECRET) || /door code/i.test(line)) found.push(`${rel}: ${line}`);
    }
  }
  return found;
}

describe('forget', { timeout: 240_000 }, () => {
  it('hides only the forgotten line of a page section, at once; the rest of the section stays searchable', async () => {
    const { root } = await makeVault();
    await runJson(['--vault', root, 'reindex']);
    expect((await search(root, 'door code studio')).some((r) => r.kind === 'page' && r.text.includes('Door code'))).toBe(true);

    await runJson(['--vault', root, 'forget', SECRET]);
    // forget reindexed: the index already projects the tombstone, so a reindex now has nothing to write.
    const index = await runJson<{ added: number; removed: number }>(['--vault', root, 'reindex']);
    expect(index).toMatchObject({ added: 0, removed: 0 });

    const cello = await search(root, 'cello every Sunday');
    const page = cello.find((r) => r.kind === 'page' && r.path === '2_Areas/Music.md');
    expect(page, JSON.stringify(cello)).toBeDefined();
    expect(page!.text).toContain('Plays the cello every Sunday');
    expect(page!.text).not.toMatch(/Door code/);
    for (const r of await search(root, 'door code studio 4711')) expect(r.text).not.toMatch(/Door code|4711/);
  });
});

describe('a dream after forget', { timeout: 240_000 }, () => {
  it('with the offline consolidator: the runner removes the forgotten line from the page', async () => {
    const { root } = await makeVault();
    await runJson(['--vault', root, 'forget', SECRET]);
    const run = await runJson<{ status: string }>(['--vault', root, 'dream', '--force', '--offline']);
    expect(run.status).toBe('ok');
    expect(await forgottenLines(root)).toEqual([]);
    expect(await readFile(path.join(root, '2_Areas/Music.md'), 'utf8')).toContain(`Plays the cello every Sunday [[${D1}#^${CELLO}]]`);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('with the LLM consolidator: a model that writes the forgotten fact back has it removed before the commit', async () => {
    const server = await startLlm([
      tools(
        call('write_page', {
          path: '2_Areas/Music.md',
          content: `${PAGE}- Bought a new bow for the cello [[${D2}#^${NEW}]]\n`,
        }),
        call('write_page', {
          path: '3_Personal/Studio.md',
          content: `---\ntitle: Studio\ntype: place\n---\n# Studio\n\n- The door code is 4711 at the studio [[${D1}#^${SECRET}]]\n- Rehearsals are on Sundays [[${D2}#^${NEW}]]\n`,
        }),
      ),
      tools(call('finish', { summary: 'placed the bow' })),
    ]);
    const { root } = await makeVault();
    await runJson(['--vault', root, 'forget', SECRET]);
    const env = { VAULTKEEPER_LLM_BASE_URL: server.baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model' };
    const result = await runCli(['--vault', root, 'dream', '--force', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'ok', consolidator: 'llm', forgotten: 2 });

    expect(await forgottenLines(root)).toEqual([]);
    // Nothing forgotten reached git either: the dream's commit holds no line naming it.
    expect(await git(root, ['show', 'HEAD'])).not.toMatch(new RegExp(`^\\+.*(${SECRET}|Door code)`, 'im'));
    const studio = await readFile(path.join(root, '3_Personal/Studio.md'), 'utf8');
    expect(studio).toContain(`Rehearsals are on Sundays [[${D2}#^${NEW}]]`);
    expect((await readJournal(root)).watermark).toBe(D2);
    expect(await gitStatus(root)).toEqual([]);
  });
});
