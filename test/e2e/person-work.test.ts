/**
 * A person's work is read right (issue 26, "Deliver 7"), through the built CLI: a conflict resolved on its
 * page is closed at once in `conflicts` and by the next dream in the inbox; lines typed into a log are
 * committed as the person's, a killed command's as a recovery; undo goes through after the program
 * regenerated MEMORY.md and refuses over a person's edit; on an adopted vault a person's notes stay byte for
 * byte (a scripted model that tries to write one gets an error result), and the runner refuses a run that
 * changes a person's line or its line ending.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { healthSnapshot } from '../../src/daemon/jobs/health.js';
import { promoteMemory } from '../../src/daemon/jobs/promote.js';
import { openVault } from '../../src/vault/vault.js';
import { runCli, runJson } from '../helpers/cli.js';
import { call, toolResults, tools, useFakeLlm, type ChatRequest, type Reply, type Step } from '../helpers/fake-llm.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { expectOneLineError, git, gitStatus, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const CONFIG = 'timezone: UTC\nindex:\n  embedder: none\n';
const PERSON = ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false'];

interface DreamJson {
  status: string;
  run: string;
  reason: string;
  check: string | null;
  pages: { created: string[]; updated: string[] };
}

interface ConflictJson {
  conflicts: Array<{ line: number; subject: string; resolved: boolean; page: string | null; resolved_by: string | null }>;
}

/** A vault made by the CLI with the test's config committed, as a person would. */
async function vault(config = CONFIG): Promise<string> {
  const root = await initVault(await tempDir());
  await writeTree(root, { '.vaultkeeper/config.yaml': config });
  await git(root, [...PERSON, 'commit', '--quiet', '-am', 'my config']);
  return root;
}

const remember = (root: string, facts: object[]): Promise<unknown> => runJson(['--vault', root, 'remember', '--stdin'], { input: facts.map((f) => JSON.stringify(f)).join('\n') });
/** A forced dream; its JSON whether it succeeded or failed (a failed run exits 1). */
async function dream(root: string, env?: Record<string, string>): Promise<DreamJson> {
  const run = await runCli(['--vault', root, 'dream', '--force', '--json'], env === undefined ? {} : { env });
  expect(run.stdout, run.stderr).not.toBe('');
  return JSON.parse(run.stdout) as DreamJson;
}
const read = (root: string, rel: string): Promise<string> => readFile(path.join(root, rel), 'utf8');

/** Commits newest first: subject, op trailer and files. */
async function commits(root: string): Promise<Array<{ subject: string; op: string; files: string[] }>> {
  const out = await git(root, ['log', '--format=%x1e%s%x1f%(trailers:key=Vaultkeeper-Op,valueonly,separator=%x2c)%x1f', '--name-only']);
  return out
    .split('\x1e')
    .filter((r) => r.trim() !== '')
    .map((r) => {
      const [subject = '', op = '', files = ''] = r.split('\x1f');
      return { subject, op: op.trim(), files: files.split('\n').filter(Boolean) };
    });
}

describe('a conflict resolved on its page', { timeout: 240_000 }, () => {
  it('is closed at once in `conflicts` and health, and the next dream ticks it in the inbox: ticked, answered under Current, or deleted', async () => {
    const root = await vault();
    const D = '2026-06-04';
    await remember(root, [
      { text: 'home city:: Lisbon', date: D },
      { text: 'home city:: Porto', date: D },
      { text: 'standup time:: 09:30', date: D, tags: ['work'] },
      { text: 'standup time:: 10:00', date: D, tags: ['work'] },
      { text: 'gym day:: Monday', date: D, tags: ['work'] },
      { text: 'gym day:: Tuesday', date: D, tags: ['work'] },
    ]);
    expect((await dream(root)).status).toBe('ok');
    const open = await runJson<ConflictJson>(['--vault', root, 'conflicts']);
    expect(open.conflicts.map((c) => [c.subject, c.page, c.resolved])).toEqual([
      ['home city', '2_Areas/General.md', false],
      ['standup time', '2_Areas/Work.md', false],
      ['gym day', '2_Areas/Work.md', false],
    ]);
    // Each inbox entry names its page.
    expect(await read(root, '0_Inbox/conflicts.md')).toMatch(/- \[ \] \*\*home city\*\*: .* · on \[\[2_Areas\/General\|General\]\]\n/);

    // Ticked on one page; on the other, a value written under Current, and a conflict line deleted.
    const facts = await read(root, '2_Areas/General.md');
    await writeFile(path.join(root, '2_Areas/General.md'), facts.replace('- [ ] **home city**', '- [x] **home city**'));
    const work = await read(root, '2_Areas/Work.md');
    await writeFile(
      path.join(root, '2_Areas/Work.md'),
      work
        .replace('# Work\n\n', '# Work\n\n## Current\n\n- standup time:: 10:00\n\n')
        .split('\n')
        .filter((l) => !l.includes('**gym day**'))
        .join('\n'),
    );

    expect((await runJson<ConflictJson>(['--vault', root, 'conflicts'])).conflicts).toEqual([]);
    const all = await runJson<ConflictJson>(['--vault', root, 'conflicts', '--all']);
    expect(all.conflicts.map((c) => [c.subject, c.resolved, c.resolved_by])).toEqual([
      ['home city', true, 'tick'],
      ['standup time', true, 'current'],
      ['gym day', true, 'removed'],
    ]);
    const text = await runCli(['--vault', root, 'conflicts']);
    expect(text.stdout).toBe('no open conflicts\n');
    const library = await openVault({ vault: root });
    expect((await healthSnapshot(library, new Date('2026-06-06T00:00:00Z'))).open_conflicts).toBe(0);
    await library.close();
    // Nothing was written for that: the inbox still shows them open until the next dream.
    expect((await read(root, '0_Inbox/conflicts.md')).match(/^- \[ \]/gm)).toHaveLength(3);

    await remember(root, [{ text: 'Lunch at noon on Fridays', date: '2026-06-05', tags: ['work'] }]);
    const next = await dream(root);
    expect(next.status, next.reason).toBe('ok');
    const inbox = await read(root, '0_Inbox/conflicts.md');
    expect(inbox.match(/^- \[x\]/gm)).toHaveLength(3);
    expect(inbox).not.toMatch(/^- \[ \]/m);
    // The page follows the resolutions: the person's Current value stands, the conflict line is settled in History.
    const settled = await read(root, '2_Areas/Work.md');
    expect(settled).toMatch(/## Current\n\n- standup time:: 10:00\n/);
    expect(settled).toMatch(/## History\n\n(- .+\n)*- \[x\] \*\*standup time\*\*: "09:30"/);
    expect(settled).not.toContain('## Conflicts');
    expect(await read(root, '2_Areas/General.md')).toMatch(/## Current\n\n- home city:: Porto \[\[2026-06-04#/);
    expect((await runJson<ConflictJson>(['--vault', root, 'conflicts', '--all'])).conflicts.map((c) => c.resolved_by)).toEqual(['inbox', 'inbox', 'inbox']);
    expect(await gitStatus(root)).toEqual([]);
  });
});

describe('lines a person typed into a log', { timeout: 240_000 }, () => {
  it("are committed as the person's, while a killed remember's lines are committed as its recovery", async () => {
    const root = await vault();
    await runJson(['--vault', root, 'remember', 'Plays the cello', '--date', '2026-06-01']);
    // A person types a line into that day's log; another remember is killed between its append and its commit.
    await appendFile(path.join(root, 'logs/2026-06-01.md'), '- [fact] Typed this one by hand\n');
    const killed = await runCli(['--vault', root, 'remember', 'Learns the tango', '--date', '2026-06-02'], { env: { VAULTKEEPER_FAILPOINT: 'remember:after-append' } });
    expect(killed.code).toBe(-1);

    await runJson(['--vault', root, 'remember', 'Reads Saramago', '--date', '2026-06-03']);
    const [latest, recovered, hand] = await commits(root);
    expect(hand).toEqual({ subject: 'log: lines written by hand in logs/2026-06-01.md', op: 'log', files: ['logs/2026-06-01.md'] });
    expect(recovered).toEqual({ subject: 'recover: commit logs/2026-06-02.md written before an interruption', op: 'recover', files: ['logs/2026-06-02.md'] });
    expect(latest).toMatchObject({ op: 'remember', files: ['logs/2026-06-03.md'] });
    expect((await commits(root)).filter((c) => c.op === 'recover')).toHaveLength(1);
    expect(await gitStatus(root)).toEqual([]);

    // A hand-written line alone, before a dream: committed as the person's, never as a recovery.
    await appendFile(path.join(root, 'logs/2026-06-03.md'), '- [fact] And another by hand\n');
    expect((await dream(root)).status).toBe('ok');
    const subjects = (await commits(root)).map((c) => c.subject);
    expect(subjects[1]).toBe('log: lines written by hand in logs/2026-06-03.md');
    expect(subjects.filter((s) => s.startsWith('recover:'))).toHaveLength(1);
  });
});

describe('undo', { timeout: 240_000 }, () => {
  async function dreamt(): Promise<{ root: string; run: string }> {
    const root = await vault();
    await remember(root, [
      { text: 'brewing method:: AeroPress', tags: ['coffee'], date: '2026-06-01' },
      { text: 'Prefers dark roast coffee', category: 'preference', tags: ['coffee'], date: '2026-06-01' },
      { text: 'Plays the cello on Thursdays', category: 'skill', tags: ['music'], date: '2026-06-02' },
    ]);
    const result = await dream(root);
    expect(result.status).toBe('ok');
    return { root, run: result.run };
  }

  it('goes through after the program regenerated MEMORY.md, and regenerates it from the pages put back', async () => {
    const { root, run } = await dreamt();
    const library = await openVault({ vault: root });
    for (const query of ['brewing method', 'dark roast coffee', 'AeroPress']) await library.search(query);
    // The daemon's promote job: MEMORY.md regenerated with what searches recall, in a commit of its own.
    const promoted = await promoteMemory(library, { now: new Date('2026-06-05T04:00:00Z') });
    await library.close();
    expect(promoted.changed).toBe(true);
    expect((await commits(root))[0]).toMatchObject({ op: 'promote', files: ['MEMORY.md'] });

    const undone = await runCli(['--vault', root, 'undo', run]);
    expect(undone.code, undone.stderr).toBe(0);
    expect((await commits(root))[0]).toMatchObject({ subject: `undo: revert dream run ${run}`, op: 'undo' });
    const memory = await read(root, 'MEMORY.md');
    expect(memory).not.toMatch(/AeroPress|dark roast/);
    expect(await read(root, 'log.md')).not.toContain(`run ${run}`);
    expect(await gitStatus(root)).toEqual([]);
    // The days are pending again, and a dream places them again.
    expect((await dream(root)).status).toBe('ok');
  });

  it("refuses in one line when a person edited a page the run changed, committed or not, and changes nothing", async () => {
    const { root, run } = await dreamt();
    const page = (await commits(root))[0]!.files.find((f) => f.startsWith('3_Personal/') || f.startsWith('2_Areas/'))!;
    await appendFile(path.join(root, page), '\nMy own line, added after the dream.\n');
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();

    const uncommitted = await runCli(['--vault', root, 'undo', run]);
    expectOneLineError(uncommitted, 1, new RegExp(`run ${run} changed ${page.replace(/[.]/g, '\\.')}, which has edits not committed yet; nothing was changed`));
    await git(root, [...PERSON, 'commit', '--quiet', '-am', 'my line']);
    const committed = await runCli(['--vault', root, 'undo', run]);
    expectOneLineError(committed, 1, new RegExp(`run ${run} changed ${page.replace(/[.]/g, '\\.')}, which a person edited since \\(commit [0-9a-f]{8}\\); nothing was changed`));
    // Only the person's own commit came after the run; the undo made none.
    expect((await git(root, ['rev-parse', 'HEAD~1'])).trim()).toBe(head);
    expect((await commits(root))[0]).toMatchObject({ subject: 'my line', op: '' });
    expect(await read(root, page)).toContain('My own line, added after the dream.');
    expect(await gitStatus(root)).toEqual([]);
  });
});

describe('a person\'s own notes on an adopted vault', { timeout: 240_000 }, () => {
  const NOTE = '# Lisbon\r\n\r\nMy favourite city. The tiles!\r\n- Went there in 2019\r\n';
  const D = '2026-06-04';
  const FACTS = [
    { text: 'Flew to Lisbon for a week', date: D },
    { text: 'Lisbon has the best tiles', date: D },
    { text: 'Ate pasteis de nata in Lisbon', date: D },
  ];

  async function adopted(config = CONFIG): Promise<string> {
    const root = path.join(await tempDir(), 'notes');
    await writeTree(root, { 'Places/Lisbon.md': NOTE, 'Garden.md': '# Garden\n\nTomatoes in the south bed.\n' });
    await runJson(['init', '--adopt', root]);
    await writeTree(root, { '.vaultkeeper/config.yaml': config });
    await git(root, [...PERSON, 'commit', '--quiet', '-am', 'my config']);
    await remember(root, FACTS);
    return root;
  }

  /** A scripted model: reads the log, tries `first` (with the facts' citations), then writes its own page and finishes. */
  function model(first: (cites: string[]) => Reply): Step[] {
    let cites: string[] = [];
    return [
      tools(call('read_log', { date: D })),
      (request: ChatRequest) => {
        cites = toolResults(request).flatMap((r) => (r.result as { facts: Array<{ cite: string }> }).facts.map((f) => f.cite));
        return first(cites);
      },
      (request: ChatRequest) => {
        const [result] = toolResults(request);
        // The error result is what the model reads; it writes its own page next.
        expect(result).toBeDefined();
        return tools(call('write_page', { path: '2_Areas/Lisbon trip.md', content: `# Lisbon trip\n\nSee also [[Lisbon]].\n\n${FACTS.map((f, i) => `- ${f.text} ${cites[i]}`).join('\n')}\n` }));
      },
      tools(call('finish', { summary: 'placed the facts on a page of my own' })),
    ];
  }

  const llmEnv = (baseUrl: string): Record<string, string> => ({ VAULTKEEPER_LLM_BASE_URL: baseUrl, VAULTKEEPER_LLM_MODEL: 'person-model', VAULTKEEPER_LLM_API_KEY_ENV: 'VK_PERSON_KEY', VK_PERSON_KEY: 'sk-person-test' });

  it('a model that tries to write the note gets an error result; the note stays byte for byte and the statements are on its own page', async () => {
    const root = await adopted();
    const note = await readFile(path.join(root, 'Places/Lisbon.md'));
    const server = await startLlm(model((cites) => tools(call('write_page', { path: 'Places/Lisbon.md', content: `# Lisbon\n\nMy favourite city. The tiles!\n- Went there in 2019\n- ${FACTS[0]!.text} ${cites[0]}\n` }))));
    const result = await dream(root, llmEnv(server.baseUrl));
    expect(result.status, result.reason).toBe('ok');
    const refused = toolResults(server.requests[2]!)[0]!;
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/^read_only: Places\/Lisbon\.md is a person's own note \(this vault was adopted/);
    expect((await readFile(path.join(root, 'Places/Lisbon.md'))).equals(note)).toBe(true);
    expect(result.pages.updated).not.toContain('Places/Lisbon.md');
    const own = await read(root, '2_Areas/Lisbon trip.md');
    for (const fact of FACTS) expect(own).toContain(fact.text);
    expect(own).toContain('[[Lisbon]]');
  });

  it('the offline dream never changes the note: the run is refused (person_page) rather than write it, byte for byte as it was', async () => {
    const root = await adopted();
    const note = await readFile(path.join(root, 'Places/Lisbon.md'));
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const result = await dream(root);
    // Until the offline consolidator takes ConsolidationInput.readOnly, its page for Lisbon is the person's
    // note; the runner's check refuses that run. Once it does, the run is ok and writes a page of its own.
    if (result.status === 'failed') {
      expect(result.check).toBe('person_page');
      expect(result.reason).toMatch(/Places\/Lisbon\.md is a person's own note on this adopted vault/);
      expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
    } else {
      expect(result.status).toBe('ok');
      expect(result.pages.updated).not.toContain('Places/Lisbon.md');
      const pages = await Promise.all(result.pages.created.map((rel) => read(root, rel)));
      for (const fact of FACTS) expect(pages.join('\n')).toContain(fact.text);
    }
    expect((await readFile(path.join(root, 'Places/Lisbon.md'))).equals(note)).toBe(true);
  });

  it('with dream.adopted_notes: append the dream may add to a note, and keeps every line and line ending of the person\'s', async () => {
    const root = await adopted(`${CONFIG}dream:\n  adopted_notes: append\n`);
    const result = await dream(root);
    expect(result.status, result.reason).toBe('ok');
    expect(result.pages.updated).toContain('Places/Lisbon.md');
    const after = await readFile(path.join(root, 'Places/Lisbon.md'));
    expect(after.subarray(0, NOTE.length).equals(Buffer.from(NOTE))).toBe(true);
    for (const fact of FACTS) expect(after.toString('utf8')).toContain(fact.text);
  });

  it("the runner refuses a run that rewrites a person's line ending, on any vault (compared by bytes)", async () => {
    const root = await vault();
    await writeTree(root, { '2_Areas/Lisbon.md': NOTE });
    await git(root, ['add', '--all']);
    await git(root, [...PERSON, 'commit', '--quiet', '-m', 'my note']);
    await remember(root, FACTS);
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    // The same words with LF endings, and the facts appended: the text is kept, the bytes are not.
    const server = await startLlm(model((cites) => tools(call('write_page', { path: '2_Areas/Lisbon.md', content: `${NOTE.replace(/\r\n/g, '\n')}\n${FACTS.map((f, i) => `- ${f.text} ${cites[i]}`).join('\n')}\n` }))));
    const result = await dream(root, llmEnv(server.baseUrl));
    expect(result.status).toBe('failed');
    expect(result.check).toBe('person_lines');
    expect(result.reason).toMatch(/2_Areas\/Lisbon\.md: the line ending of a line a person wrote was changed: "# Lisbon"/);
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
    expect(await read(root, '2_Areas/Lisbon.md')).toBe(NOTE);
  });
});
