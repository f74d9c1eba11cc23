/**
 * Coverage across runs (DESIGN §7), through the built CLI: a dream may not drop a citation the pages held
 * before it (moving one between pages is fine), and facts written into a date at or below the watermark —
 * back-dated later, or appended to a batch date while its dream runs — are pending for the next dream,
 * which places them without moving the watermark back. The only fake is a scripted OpenAI-compatible
 * server on 127.0.0.1.
 */
import { listWikiPages } from '../../src/pages/discover.js';
import { spawnSync } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { CLI, runCli, runJson } from '../helpers/cli.js';
import { call, tools, useFakeLlm } from '../helpers/fake-llm.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, gitStatus, makeLoggedVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const D1 = '2025-06-01';
const D2 = '2025-06-02';
const D3 = '2025-06-03';
const CELLO = 'f-aaaaaaaaa1';
const VIOLA = 'f-aaaaaaaaa2';
const BOW = 'f-aaaaaaaaa3';
const ROSIN = 'f-aaaaaaaaa4';
const LOG1 = `# ${D1}\n\n## 09:00 · cli\n- [fact] Plays the cello every Sunday #music ^${CELLO}\n- [fact] Owns a viola from 1920 #music ^${VIOLA}\n`;
const LOG2 = `# ${D2}\n\n## 09:00 · cli\n- [fact] Bought a new bow for the cello #music ^${BOW}\n`;
const LOG3 = `# ${D3}\n\n## 09:00 · cli\n- [fact] Uses dark rosin in winter #music ^${ROSIN}\n`;

interface DreamJson {
  status: string;
  check: string | null;
  reason: string;
  batch: { from: string; to: string } | null;
  facts: number;
  watermark: { before: string | null; after: string | null };
  consolidator: string | null;
}

interface StatusJson {
  watermark: string | null;
  pending_days: number;
  pending: string[];
  facts_pending: number;
}

interface RememberJson {
  facts: Array<{ id: string; date: string }>;
  late: string[];
  note?: string;
}

/** A vault with the given logs, committed by a person; full-text search only. */
const makeVault = (logs: Record<string, string>, config = ''): Promise<string> => makeLoggedVault(tempDir, logs, config);

/** Fact ids cited on the wiki pages (outside logs/, hidden folders and the root files), by page. */
async function citations(root: string): Promise<Map<string, string>> {
  const cited = new Map<string, string>();
  for (const rel of await readdir(root, { recursive: true })) {
    if (!rel.endsWith('.md') || !/^\d_/.test(rel)) continue;
    for (const match of (await readFile(path.join(root, rel), 'utf8')).matchAll(/#\^(f-[0-9a-z]+)/g)) cited.set(match[1]!, rel);
  }
  return cited;
}

const dream = (root: string, ...extra: string[]): Promise<DreamJson> => runJson<DreamJson>(['--vault', root, 'dream', '--force', ...extra]);
const llmEnv = (baseUrl: string): Record<string, string> => ({ VAULTKEEPER_LLM_BASE_URL: baseUrl, VAULTKEEPER_LLM_MODEL: 'fake-model' });

describe('a dream may not drop a citation an earlier run placed', () => {
  it('refuses a model that cuts an earlier page to a stub (the batch is halved), and the offline dream then places every fact', async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1 });
    expect((await dream(root, '--offline')).status).toBe('ok');
    const page = (await citations(root)).get(CELLO);
    expect(page).toBeDefined();
    expect((await citations(root)).get(VIOLA)).toBeDefined();
    await writeTree(root, { [`logs/${D2}.md`]: LOG2, [`logs/${D3}.md`]: LOG3 });
    await git(root, ['add', '--all']);
    await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', 'commit', '--quiet', '-m', 'more logs']);
    const head = await git(root, ['rev-parse', 'HEAD']);

    // The model places the new facts but cuts the earlier page to a stub: two citations are gone from the wiki.
    const server = await startLlm([
      tools(call('write_page', { path: page!, content: `---\ntitle: Music\n---\n# Music\n\n- Bought a new bow for the cello [[${D2}#^${BOW}]]\n- Uses dark rosin in winter [[${D3}#^${ROSIN}]]\n` })),
      tools(call('finish', { summary: 'tidied the music page' })),
    ]);
    const result = await runCli(['--vault', root, 'dream', '--force', '--json'], { env: llmEnv(server.baseUrl) });
    expect(result.code, result.stderr).toBe(1);
    const run = JSON.parse(result.stdout) as DreamJson;
    expect(run).toMatchObject({ status: 'failed', check: 'coverage', consolidator: 'llm', batch: { from: D2, to: D3 }, watermark: { before: D1, after: D1 } });
    expect(run.reason).toContain(`2 facts the pages cited before the run are cited by no page after it (${CELLO}, ${VIOLA})`);
    // A failed batch of two days is halved before any day could be skipped.
    expect(run.reason).toContain(`the next run tries ${D2}..${D2} alone`);
    expect((await git(root, ['rev-parse', 'HEAD']))).toBe(head);
    expect(await gitStatus(root)).toEqual([]);
    expect((await readJournal(root)).watermark).toBe(D1);

    // The offline consolidator never trips the check: it takes the halved batch, then the rest.
    expect(await dream(root, '--offline')).toMatchObject({ status: 'ok', batch: { from: D2, to: D2 } });
    expect(await dream(root, '--offline')).toMatchObject({ status: 'ok', batch: { from: D3, to: D3 } });
    expect([...(await citations(root)).keys()].sort()).toEqual([CELLO, VIOLA, BOW, ROSIN]);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('accepts a model that moves the earlier citations to another page', async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1, [`logs/${D2}.md`]: LOG2 }, 'dream:\n  max_days: 1\n');
    expect((await dream(root, '--offline')).status).toBe('ok');
    const page = (await citations(root)).get(CELLO)!;
    const server = await startLlm([
      tools(
        call('write_page', { path: page, content: `---\ntitle: Music\n---\n# Music\n\n- Bought a new bow for the cello [[${D2}#^${BOW}]]\n- See [[Instruments]]\n` }),
        call('write_page', { path: '3_Personal/Instruments.md', content: `---\ntitle: Instruments\n---\n# Instruments\n\n- Plays the cello every Sunday [[${D1}#^${CELLO}]]\n- Owns a viola from 1920 [[${D1}#^${VIOLA}]]\n` }),
      ),
      tools(call('finish', { summary: 'split instruments out' })),
    ]);
    const result = await runCli(['--vault', root, 'dream', '--force', '--json'], { env: llmEnv(server.baseUrl) });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'ok', consolidator: 'llm', batch: { from: D2, to: D2 } });
    const cited = await citations(root);
    expect(cited.get(CELLO)).toBe('3_Personal/Instruments.md');
    expect(cited.get(VIOLA)).toBe('3_Personal/Instruments.md');
    expect(cited.get(BOW)).toBe(page);
    expect(await gitStatus(root)).toEqual([]);
  });
});

describe('facts dated at or below the watermark are pending for the next dream', () => {
  it('remember --date into a consolidated day says the next dream places it; status counts it; the next dream places it and the watermark stays', async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1, [`logs/${D2}.md`]: LOG2 });
    expect((await dream(root, '--offline')).status).toBe('ok');
    expect((await readJournal(root)).watermark).toBe(D2);
    expect((await dream(root, '--offline')).status).toBe('noop');

    const late = await runCli(['--vault', root, 'remember', 'Tunes the cello before every concert', '-t', 'music', '--date', D1, '--json']);
    expect(late.code, late.stderr).toBe(0);
    expect(late.stderr).toBe(`vaultkeeper: note: ${D1} is at or below the dream's watermark (${D2}): this fact stays searchable, and the next dream will place it on a page\n`);
    const stored = JSON.parse(late.stdout) as RememberJson;
    expect(stored.late).toEqual([D1]);
    expect(stored.note).toContain('the next dream will place it');
    const id = stored.facts[0]!.id;
    expect((await citations(root)).has(id)).toBe(false);
    // A fact for a day not yet consolidated gets no note.
    const fresh = await runCli(['--vault', root, 'remember', 'Rehearsal moved to Fridays', '--date', '2025-06-04', '--json']);
    expect(fresh.stderr).toBe('');
    expect((JSON.parse(fresh.stdout) as RememberJson).late).toEqual([]);

    // Searchable meanwhile, and pending: only the uncited fact of D1 counts, beside the new day.
    const found = await runJson<{ results: Array<{ kind: string; id: string }> }>(['--vault', root, 'search', 'tunes the cello concert']);
    expect(found.results.some((r) => r.kind === 'fact' && r.id === id)).toBe(true);
    const status = await runJson<StatusJson>(['--vault', root, 'status']);
    expect(status).toMatchObject({ watermark: D2, pending: [D1, '2025-06-04'], pending_days: 2, facts_pending: 2 });

    const run = await dream(root, '--offline');
    expect(run).toMatchObject({ status: 'ok', batch: { from: D1, to: '2025-06-04' }, facts: 2, watermark: { before: D2, after: '2025-06-04' } });
    expect((await citations(root)).has(id)).toBe(true);
    expect(await dream(root, '--offline')).toMatchObject({ status: 'noop' });
    expect(await gitStatus(root)).toEqual([]);

    // A batch of late facts alone leaves the watermark where it was.
    const again = await runJson<RememberJson>(['--vault', root, 'remember', 'Keeps the viola in a humid case', '-t', 'music', '--date', D2]);
    expect(again.late).toEqual([D2]);
    const lateOnly = await dream(root, '--offline');
    expect(lateOnly).toMatchObject({ status: 'ok', batch: { from: D2, to: D2 }, facts: 1, watermark: { before: '2025-06-04', after: '2025-06-04' } });
    expect((await readJournal(root)).watermark).toBe('2025-06-04');
    expect(await readFile(path.join(root, 'log.md'), 'utf8')).toMatch(new RegExp(`consolidated ${D2}\\.\\.${D2} · watermark=2025-06-04 `));
    expect(await git(root, ['log', '-1', '--format=%B'])).toContain('the watermark stays at 2025-06-04');
    expect((await citations(root)).has(again.facts[0]!.id)).toBe(true);
    expect((await runJson<StatusJson>(['--vault', root, 'status'])).pending_days).toBe(0);
  });

  it('a citation standing only in fenced code places nothing: the fact is pending again and the next dream places it, the code kept as written', async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1 });
    expect((await dream(root, '--offline')).status).toBe('ok');
    const page = (await citations(root)).get(VIOLA)!;
    const before = await readFile(path.join(root, page), 'utf8');
    const line = before.split('\n').find((l) => l.startsWith('- ') && l.includes(`#^${VIOLA}`))!;
    // A person turns the viola's line into an example inside a code block.
    const fenced = ['```markdown', line, '```'].join('\n');
    // (A page's lead quotes its statements with their citations: the person takes the viola out of every other
    // line that cites it too.)
    const cite = /\[\[\d{4}-\d{2}-\d{2}#\^[0-9a-z-]+\]\]/.exec(line)![0];
    const uncite = (text: string): string =>
      text
        .split('\n')
        .filter((l) => !(l.startsWith('**') && l.includes(cite))) // a lead quoting it goes (the dream writes it anew)
        .map((l) => (l === line ? l : l.replace(` ${cite}`, '')))
        .join('\n');
    const others: Record<string, string> = {};
    for (const rel of await listWikiPages(root)) if (rel !== page) others[rel] = uncite(await readFile(path.join(root, rel), 'utf8'));
    await writeTree(root, { ...others, [page]: uncite(before).replace(line, '').trimEnd() + `\n\n${fenced}\n` });
    await git(root, ['add', '--all']);
    await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', 'commit', '--quiet', '-m', 'example']);

    expect(await runJson<StatusJson>(['--vault', root, 'status'])).toMatchObject({ watermark: D1, pending: [D1], facts_pending: 1 });
    expect(await dream(root, '--offline')).toMatchObject({ status: 'ok', facts: 1, watermark: { before: D1, after: D1 } });
    const after = await readFile(path.join(root, page), 'utf8');
    expect(after).toContain(fenced);
    const outside = after.replace(fenced, '');
    expect(outside).toContain(`#^${VIOLA}`);
    expect((await runJson<StatusJson>(['--vault', root, 'status'])).facts_pending).toBe(0);
  });

  it('a fact appended to a batch date while its dream runs is placed by the next dream', async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1, [`logs/${D2}.md`]: LOG2 });
    let appended: RememberJson | null = null;
    // While the model thinks (the run has read its batch), a fact is written into the batch's last day.
    const server = await startLlm([
      () => {
        const child = spawnSync(process.execPath, [CLI, '--vault', root, 'remember', 'Restrings the viola every spring', '-t', 'music', '--date', D2, '--json'], { encoding: 'utf8', env: { ...process.env, VAULTKEEPER_VAULT: undefined } });
        appended = JSON.parse(child.stdout) as RememberJson;
        return tools(
          call('write_page', {
            path: '2_Areas/Music.md',
            content: `---\ntitle: Music\n---\n# Music\n\n- Plays the cello every Sunday [[${D1}#^${CELLO}]]\n- Owns a viola from 1920 [[${D1}#^${VIOLA}]]\n- Bought a new bow for the cello [[${D2}#^${BOW}]]\n`,
          }),
        );
      },
      tools(call('finish', { summary: 'placed the music facts' })),
    ]);
    const result = await runCli(['--vault', root, 'dream', '--force', '--json'], { env: llmEnv(server.baseUrl) });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'ok', consolidator: 'llm', batch: { from: D1, to: D2 }, facts: 3, watermark: { after: D2 } });
    expect(appended).not.toBeNull();
    const id = appended!.facts[0]!.id;
    // The day was still pending when the fact came: no note then.
    expect(appended!.late).toEqual([]);
    expect((await citations(root)).has(id)).toBe(false);
    expect(await gitStatus(root)).toEqual([]);

    expect(await runJson<StatusJson>(['--vault', root, 'status'])).toMatchObject({ watermark: D2, pending: [D2], facts_pending: 1 });
    expect(await dream(root, '--offline')).toMatchObject({ status: 'ok', batch: { from: D2, to: D2 }, facts: 1, watermark: { before: D2, after: D2 } });
    expect((await citations(root)).has(id)).toBe(true);
    const cited = await citations(root);
    expect([CELLO, VIOLA, BOW].filter((f) => !cited.has(f))).toEqual([]);
    expect((await runJson<StatusJson>(['--vault', root, 'status'])).pending_days).toBe(0);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('a late day that keeps failing is skipped alone: the watermark stays and its facts stay searchable', async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1, [`logs/${D2}.md`]: LOG2 }, 'dream:\n  max_retries: 1\n');
    expect((await dream(root, '--offline')).status).toBe('ok');
    const page = (await citations(root)).get(CELLO)!;
    const late = await runJson<RememberJson>(['--vault', root, 'remember', 'Tunes the cello before every concert', '-t', 'music', '--date', D1]);
    expect(late.late).toEqual([D1]);
    // The model places the late fact but drops the day's earlier citations.
    const server = await startLlm([
      tools(call('write_page', { path: page, content: `---\ntitle: Music\n---\n# Music\n\n- Tunes the cello before every concert [[${D1}#^${late.facts[0]!.id}]]\n- Bought a new bow for the cello [[${D2}#^${BOW}]]\n` })),
      tools(call('finish', { summary: 'placed it' })),
    ]);
    const result = await runCli(['--vault', root, 'dream', '--force', '--json'], { env: llmEnv(server.baseUrl) });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'skipped', batch: { from: D1, to: D1 }, watermark: { before: D2, after: D2 } });
    expect((await readJournal(root)).watermark).toBe(D2);
    expect(await runJson<StatusJson>(['--vault', root, 'status'])).toMatchObject({ watermark: D2, pending_days: 0, facts_pending: 0 });
    const found = await runJson<{ results: Array<{ kind: string; id: string }> }>(['--vault', root, 'search', 'tunes the cello concert']);
    expect(found.results.some((r) => r.kind === 'fact' && r.id === late.facts[0]!.id)).toBe(true);
    expect((await citations(root)).get(CELLO)).toBe(page);
    expect(await gitStatus(root)).toEqual([]);
  });

  it("MCP memory_remember's result says the next dream will place a fact dated at or below the watermark", async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1 });
    expect((await dream(root, '--offline')).status).toBe('ok');
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe' });
    const client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const reply = await client.callTool({ name: 'memory_remember', arguments: { facts: [{ text: 'Tunes the cello before every concert', tags: ['music'], date: D1 }, { text: 'Bought rosin', date: D3 }] } });
      expect(reply.isError).toBeFalsy();
      const body = reply.structuredContent as RememberJson;
      expect(body.late).toEqual([D1]);
      expect(body.note).toBe(`${D1} is at or below the dream's watermark (${D1}): this fact stays searchable, and the next dream will place it on a page`);
    } finally {
      await client.close();
    }
  });
});
