/**
 * One set of checks for every consolidator (issue 26, deliverable 1), through the built CLI against a scripted
 * OpenAI-compatible model on 127.0.0.1 (the only fake): a lazy model (one junk page, then finish) fails
 * `proof_of_work` and uses up a try, and its claim reaches no commit; a model writing a claim without a
 * citation fails `uncited_claim`; a model that leaves a stale value under `## Current` has it corrected by the
 * runner, so the page, MEMORY.md and search give the newest value first; a competent model passes, its summary
 * after the runner's counts and marked as its own; the offline consolidator passes the same checks.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/dream/journal.js';
import { runCli, runJson } from '../helpers/cli.js';
import { call, toolResults, tools, useFakeLlm, type ChatRequest, type FakeLlm, type Step } from '../helpers/fake-llm.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, gitStatus, makeLoggedVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();

const KEY = 'sk-checks-Q8w2Lm4Zt7Vb1Xn5Rk9p';
const D1 = '2025-06-01';
const D2 = '2025-06-02';
/** Ten facts of one day: a batch a lazy model can skip. */
const CHORES = [
  'Repainted the garden fence',
  'Planted tomatoes by the south wall',
  'Ordered a new rain barrel',
  'Fixed the leaking kitchen tap',
  'Cleaned the gutters on the north side',
  'Bought seeds for basil and parsley',
  'Replaced the porch light bulb',
  'Booked a chimney sweep for October',
  'Sharpened the lawnmower blades',
  'Stacked firewood in the shed',
];
/** Ids as the log writer makes them: `f-` and ten of Crockford's base32 (no i, l, o, u). */
const id = (n: number): string => `f-chqre${String(n).padStart(5, '0')}`;
const CHORE_LOG = `# ${D1}\n\n## 09:00 · cli\n${CHORES.map((text, n) => `- [fact] ${text} #home ^${id(n)}`).join('\n')}\n`;

interface DreamJson {
  status: string;
  run: string;
  reason: string;
  check: string | null;
  facts: number;
  placed: number;
  uncited: number;
  conflicts: number;
  forgotten: number;
  corrected: Array<{ path: string; subject: string; from: string; to: string }>;
  pages: { created: string[]; updated: string[]; archived: unknown[] };
  watermark: { before: string | null; after: string | null };
  commit: string | null;
  consolidator: string | null;
  batch: { from: string; to: string } | null;
  summary?: string;
}

interface LoggedFact {
  id: string;
  text: string;
  cite: string;
}

/** A vault with the given logs, committed by a person; full-text search only. */
const makeVault = (logs: Record<string, string>, config = ''): Promise<string> => makeLoggedVault(tempDir, logs, config);

const llmEnv = (server: FakeLlm): Record<string, string> => ({
  VAULTKEEPER_LLM_BASE_URL: server.baseUrl,
  VAULTKEEPER_LLM_MODEL: 'checks-model',
  VAULTKEEPER_LLM_API_KEY_ENV: 'VK_CHECKS_KEY',
  VK_CHECKS_KEY: KEY,
});

async function dream(root: string, server: FakeLlm | null): Promise<{ code: number; json: DreamJson; stdout: string }> {
  const result = await runCli(['--vault', root, 'dream', '--force', '--json', ...(server === null ? ['--offline'] : [])], server === null ? {} : { env: llmEnv(server) });
  expect(result.stdout, result.stderr).not.toBe('');
  return { code: result.code, json: JSON.parse(result.stdout) as DreamJson, stdout: result.stdout };
}

const read = (root: string, rel: string): Promise<string> => readFile(path.join(root, rel), 'utf8');
const exists = (root: string, rel: string): Promise<boolean> => readFile(path.join(root, rel)).then(() => true, () => false);
const dreamState = async (root: string): Promise<{ failures: Record<string, number>; last_status: string | null }> =>
  (JSON.parse(await read(root, '.vaultkeeper/state.json')) as { dream: { failures: Record<string, number>; last_status: string | null } }).dream;
const allCommitMessages = (root: string): Promise<string> => git(root, ['log', '--all', '--format=%B']);

/** The facts the model read with read_log in the request's tool results. */
const factsIn = (request: ChatRequest): LoggedFact[] => toolResults(request).flatMap((r) => (r.ok ? (r.result as { facts: LoggedFact[] }).facts : []));

/** The first wiki page (not a root file, not under logs/ or hidden folders) whose text matches. */
async function pageWith(root: string, pattern: RegExp): Promise<string> {
  for (const rel of (await readdir(root, { recursive: true })).sort()) {
    if (!rel.endsWith('.md') || !/^\d_/.test(rel)) continue;
    if (pattern.test(await read(root, rel))) return rel.split(path.sep).join('/');
  }
  throw new Error(`no page matches ${pattern}`);
}

const front = (title: string, type: string): string => `---\ntitle: ${title}\ntype: ${type}\ncreated: ${D1}\nupdated: ${D1}\n---\n# ${title}\n`;

describe('proof of work: a lazy model fails and uses up a try', () => {
  it('one junk page and finish: failed with proof_of_work, a try counted, no watermark, no inbox dump, its claim in no commit; the next failure skips the day', async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: CHORE_LOG }, 'dream:\n  max_retries: 2\n');
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const claim = 'Placed 10 facts on 4 pages, every one cited.';
    const lazy = (): Step[] => [
      tools(call('read_log', { date: D1 })),
      (request) => tools(call('write_page', { path: '2_Areas/Misc.md', content: `${front('Misc', 'topic')}\n## Notes\n\n- ${CHORES[0]} ${factsIn(request)[0]!.cite}\n` })),
      tools(call('finish', { summary: claim })),
    ];

    const first = await dream(root, await startLlm(lazy()));
    expect(first.code).toBe(1);
    expect(first.json).toMatchObject({ status: 'failed', check: 'proof_of_work', consolidator: 'llm', facts: 10, placed: 1, commit: null, watermark: { before: null, after: null } });
    expect(first.json.reason).toContain(`the consolidator placed 1 of the batch's 10 facts on pages outside 0_Inbox/, fewer than dream.min_placed_share (0.9) asks (9)`);
    // Marked as the model's words, never the run's record.
    expect(first.json.summary).toBe(`the model's summary (its own words): "${claim}"`);
    expect(await dreamState(root)).toMatchObject({ failures: { [`${D1}..${D1}`]: 1 }, last_status: 'failed' });
    expect((await readJournal(root)).watermark).toBeNull();
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
    expect(await exists(root, '0_Inbox/unsorted.md')).toBe(false);
    expect(await exists(root, '2_Areas/Misc.md')).toBe(false);
    expect(await gitStatus(root)).toEqual([]);

    // The second failure of the one-day batch is its last (max_retries: 2): the day is skipped, its facts stay searchable.
    const second = await dream(root, await startLlm(lazy()));
    expect(second.json).toMatchObject({ status: 'skipped', check: 'proof_of_work', watermark: { before: null, after: D1 } });
    expect((await readJournal(root)).skipped.has(D1)).toBe(true);
    const messages = await allCommitMessages(root);
    expect(messages).toContain(`dream: skipped ${D1} after 2 failed runs`);
    expect(messages).not.toContain('Placed 10 facts');
    expect(messages).not.toContain('every one cited');
    expect(await exists(root, '2_Areas/Misc.md')).toBe(false);
  });
});

describe('uncited claims', () => {
  it("a line the model wrote without a citation fails uncited_claim, named with its page and line; a person's own uncited line is not the run's", async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: CHORE_LOG, '2_Areas/House.md': `${front('House', 'topic')}\nThe house was built in 1931.\n` });
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const house = await read(root, '2_Areas/House.md');
    const server = await startLlm([
      tools(call('read_log', { date: D1 })),
      (request) =>
        tools(
          call('write_page', {
            path: '2_Areas/House.md',
            content: `${house}\n## Notes\n\n${factsIn(request).map((f) => `- ${f.text} ${f.cite}`).join('\n')}\n- Switched to a new phone plan.\n`,
          }),
        ),
      tools(call('finish', { summary: 'Placed every chore on the house page.' })),
    ]);
    const run = await dream(root, server);
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ status: 'failed', check: 'uncited_claim', placed: 10, commit: null, watermark: { after: null } });
    // 7 lines of frontmatter and title, a blank line, the person's line, a blank, ## Notes, a blank, ten facts: line 23.
    const line = 23;
    expect(run.json.reason).toContain(`1 line the run wrote states something without citing a fact of the logs: 2_Areas/House.md:${line} "- Switched to a new phone plan."`);
    expect(run.json.reason).toContain('cite the fact each comes from as [[YYYY-MM-DD#^f-…]]');
    // The person's line ("built in 1931") stood before the run and is not named.
    expect(run.json.reason).not.toContain('1931');
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
    expect(await read(root, '2_Areas/House.md')).toBe(house);
    expect(await dreamState(root)).toMatchObject({ failures: { [`${D1}..${D1}`]: 1 } });
  });

  it('a citation of a fact no log holds cites nothing', async () => {
    const root = await makeVault({ [`logs/${D1}.md`]: CHORE_LOG });
    const server = await startLlm([
      tools(call('read_log', { date: D1 })),
      (request) =>
        tools(
          call('write_page', {
            path: '2_Areas/Chores.md',
            content: `${front('Chores', 'topic')}\n## Notes\n\n${factsIn(request).map((f) => `- ${f.text} ${f.cite}`).join('\n')}\n- Won the village garden prize [[${D1}#^f-zzzzzzzzzz]]\n`,
          }),
        ),
      tools(call('finish', { summary: 'done' })),
    ]);
    const run = await dream(root, server);
    expect(run.json).toMatchObject({ status: 'failed', check: 'uncited_claim' });
    expect(run.json.reason).toContain('"- Won the village garden prize [[2025-06-01#^f-zzzzzzzzzz]]"');
  });
});

describe('## Current holds the newest value', () => {
  it('a model that appends an Update and leaves the old value under Current is corrected by the runner: page, MEMORY.md and search give Lisbon first', async () => {
    const LOG1 = `# ${D1}\n\n## 09:00 · cli\n- [fact] home city:: Berlin #location ^f-hmcberkn01\n- [preference] Prefers dark roast coffee #coffee ^f-cffee00001\n`;
    const LOG2 = `# ${D2}\n\n## 09:00 · cli\n- [fact] home city:: Lisbon #location ^f-hmc1sb0n01\n- [fact] Bought a bike for the hills of Lisbon #location ^f-bkebght001\n`;
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1, [`logs/${D2}.md`]: LOG2 }, 'dream:\n  max_days: 1\n');
    // The first day, offline: Berlin stands under Current.
    const offline = await dream(root, null);
    expect(offline.json).toMatchObject({ status: 'ok', batch: { from: D1, to: D1 } });
    const home = await pageWith(root, /home city:: Berlin/);
    const before = await read(root, home);
    expect(before).toMatch(/## Current\n\n- home city:: Berlin \[\[2025-06-01#\^f-hmcberkn01\]\]/);

    // The model adds the new value in a section of its own and leaves Current as it was.
    const server = await startLlm([
      tools(call('read_log', { date: D2 })),
      (request) => {
        const [lisbon, bike] = factsIn(request);
        // The Update also keeps a keyed value outside Current (a stale model's running record): MEMORY.md must not gather it.
        return tools(call('write_page', { path: home, content: `${before.trimEnd()}\n\n## Update\n\n- Ana's employer:: Oscorp [[2025-06-01#^f-hmcberkn01]]\n- home city:: Lisbon ${lisbon!.cite}\n- ${bike!.text} ${bike!.cite}\n` }));
      },
      tools(call('finish', { summary: 'Recorded the move to Lisbon.' })),
    ]);
    const run = await dream(root, server);
    expect(run.json, run.json.reason).toMatchObject({ status: 'ok', consolidator: 'llm', facts: 2, placed: 2, uncited: 0 });
    expect(run.json.corrected).toEqual([{ path: home, subject: 'home city', from: 'Berlin', to: 'Lisbon' }]);

    const after = await read(root, home);
    expect(after).toMatch(/## Current\n\n- home city:: Lisbon \[\[2025-06-02#\^f-hmc1sb0n01\]\]\n/);
    expect(after.split('## Update')[0]).not.toContain('home city:: Berlin');
    expect(after).toMatch(/## History\n\n- home city: Berlin \[\[2025-06-01#\^f-hmcberkn01\]\] \(until 2025-06-02\)\n/);
    // Everything else the model wrote is as it wrote it.
    expect(after).toContain(`## Update\n\n- Ana's employer:: Oscorp [[2025-06-01#^f-hmcberkn01]]\n- home city:: Lisbon [[${D2}#^f-hmc1sb0n01]]\n- Bought a bike for the hills of Lisbon [[${D2}#^f-bkebght001]]\n`);

    const memory = await read(root, 'MEMORY.md');
    expect(memory).toContain('home city:: Lisbon');
    expect(memory).not.toContain('Berlin');
    expect(memory, 'a keyed value outside Current is not core memory').not.toContain('Oscorp');
    // Search ranks the newest value first: the first result naming a city names Lisbon alone.
    const found = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', 'what is my home city']);
    const city = found.results.find((r) => /Lisbon|Berlin/.test(r.text));
    expect(city?.text).toContain('home city:: Lisbon');
    expect(city?.text).not.toContain('Berlin');

    const message = await git(root, ['log', '-1', '--format=%B']);
    expect(message).toContain(`1 stale ## Current lines were corrected by the runner (the old value kept under ## History):\n- ${home}: home city Berlin → Lisbon`);
    expect(await read(root, 'log.md')).toMatch(/ · facts 2 · placed 2 · filed 0 · corrected 1\n$/);
    expect(await gitStatus(root)).toEqual([]);
  });

  it('a Current line the model writes for a value disputed on its newest day fails disputed_lead', async () => {
    const LOG = `# ${D1}\n\n## 09:00 · cli\n- [fact] home city:: Lisbon ^f-dspte00001\n- [fact] home city:: Porto ^f-dspte00002\n`;
    const root = await makeVault({ [`logs/${D1}.md`]: LOG });
    const server = await startLlm([
      tools(call('read_log', { date: D1 })),
      (request) => {
        const [lisbon, porto] = factsIn(request);
        return tools(call('write_page', { path: '3_Personal/Home.md', content: `${front('Home', 'place')}\n## Current\n\n- home city:: Porto ${porto!.cite}\n\n## History\n\n- home city: Lisbon ${lisbon!.cite}\n` }));
      },
      tools(call('finish', { summary: 'Porto is the later value.' })),
    ]);
    const run = await dream(root, server);
    expect(run.json).toMatchObject({ status: 'failed', check: 'disputed_lead' });
    expect(run.json.reason).toContain(`3_Personal/Home.md holds home city under ## Current, but the logs give it "Lisbon" and "Porto" on ${D1}`);
  });
});

describe('## Current holds the newest plain-English value too', () => {
  it('a model that writes its Current in words and leaves the old value after "I moved to Lisbon" is corrected: page, MEMORY.md and search give Lisbon', async () => {
    const LOG1 = `# ${D1}\n\n## 09:00 · cli\n- [fact] I live in Berlin #location ^f-pnbrn00001\n- [preference] Prefers dark roast coffee #coffee ^f-pncffe0001\n`;
    const LOG2 = `# ${D2}\n\n## 09:00 · cli\n- [fact] I moved to Lisbon last weekend #location ^f-pnsbn00001\n- [fact] Bought a bike for the hills #location ^f-pnbke00001\n`;
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1, [`logs/${D2}.md`]: LOG2 });
    const server = await startLlm([
      tools(call('read_log', { date: D1 }), call('read_log', { date: D2 })),
      (request) => {
        const [berlin, coffee, lisbon, bike] = factsIn(request);
        // Current says, in words and with a link, the value of the first day; the move is only a note.
        const content = `${front('Home', 'place')}\n## Current\n\n- I live in [[Berlin]] ${berlin!.cite}\n\n## Notes\n\n- ${coffee!.text} ${coffee!.cite}\n- ${lisbon!.text} ${lisbon!.cite}\n- ${bike!.text} ${bike!.cite}\n`;
        return tools(call('write_page', { path: '3_Personal/Home.md', content }), call('write_page', { path: '3_Personal/Berlin.md', content: `${front('Berlin', 'place')}\n- ${berlin!.text} ${berlin!.cite}\n` }));
      },
      tools(call('finish', { summary: 'Home page written.' })),
    ]);
    const run = await dream(root, server);
    expect(run.json, run.json.reason).toMatchObject({ status: 'ok', consolidator: 'llm', facts: 4, placed: 4 });
    expect(run.json.corrected).toEqual([{ path: '3_Personal/Home.md', subject: 'home city', from: 'Berlin', to: 'Lisbon' }]);
    const page = await read(root, '3_Personal/Home.md');
    expect(page).toMatch(/## Current\n\n- home city:: Lisbon \[\[2025-06-02#\^f-pnsbn00001\]\]\n/);
    expect(page).toMatch(/## History\n\n- I live in \[\[Berlin\]\] \[\[2025-06-01#\^f-pnbrn00001\]\] \(until 2025-06-02\)\n/);
    const memory = await read(root, 'MEMORY.md');
    expect(memory).toContain('home city:: Lisbon');
    expect(memory).not.toContain('Berlin');
    const found = await runJson<{ results: Array<{ text: string }> }>(['--vault', root, 'search', 'where do I live']);
    expect(found.results.find((r) => /Lisbon|Berlin/.test(r.text))?.text).toContain('Lisbon');
    expect(await git(root, ['log', '-1', '--format=%B'])).toContain('- 3_Personal/Home.md: home city Berlin → Lisbon');
  });

  it('a keyed Current line a plain-English move made stale is corrected', async () => {
    const LOG1 = `# ${D1}\n\n## 09:00 · cli\n- [fact] home city:: Berlin ^f-pnkybrn001\n`;
    const LOG2 = `# ${D2}\n\n## 09:00 · cli\n- [fact] Relocated to Porto for the new job ^f-pnkyprt001\n`;
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1, [`logs/${D2}.md`]: LOG2 }, 'dream:\n  max_days: 1\n');
    expect((await dream(root, null)).json).toMatchObject({ status: 'ok', batch: { from: D1, to: D1 } });
    const home = await pageWith(root, /home city:: Berlin/);
    const before = await read(root, home);
    const server = await startLlm([
      tools(call('read_log', { date: D2 })),
      (request) => {
        const [porto] = factsIn(request);
        return tools(call('write_page', { path: home, content: `${before.trimEnd()}\n\n## Notes\n\n- ${porto!.text} ${porto!.cite}\n` }));
      },
      tools(call('finish', { summary: 'Noted the move.' })),
    ]);
    const run = await dream(root, server);
    expect(run.json, run.json.reason).toMatchObject({ status: 'ok', placed: 1 });
    expect(run.json.corrected).toEqual([{ path: home, subject: 'home city', from: 'Berlin', to: 'Porto' }]);
    const after = await read(root, home);
    expect(after).toMatch(/## Current\n\n- home city:: Porto \[\[2025-06-02#\^f-pnkyprt001\]\]\n/);
    expect(after.split('## Update')[0]).not.toContain('home city:: Berlin');
    expect(await read(root, 'MEMORY.md')).not.toContain('Berlin');
  });

  it('a model that leaves the newest value out of Current (keyed in a section of its own, or a move noted in words) has it added under Current: MEMORY.md gives it', async () => {
    const LOG = `# ${D1}\n\n## 09:00 · cli\n- [fact] Ana's employer:: Initech ^f-pnmssng001\n- [fact] I moved to Lisbon last weekend ^f-pnmssng002\n- [fact] Ana plays chess on Thursdays ^f-pnmssng003\n- [fact] car:: Volvo ^f-pnmssng004\n`;
    // A person's own value under Current, uncited: theirs, so the runner adds no car value beside it.
    const ME = `${front('Me', 'person')}\n## Current\n\n- car:: Saab\n`;
    const root = await makeVault({ [`logs/${D1}.md`]: LOG, '3_Personal/Me.md': ME });
    const server = await startLlm([
      tools(call('read_log', { date: D1 })),
      (request) => {
        const [employer, lisbon, chess, car] = factsIn(request);
        return tools(
          call('write_page', { path: '3_Personal/Ana.md', content: `${front('Ana', 'person')}\n## Notes\n\n- ${chess!.text} ${chess!.cite}\n\n## Update\n\n- ${employer!.text} ${employer!.cite}\n- ${car!.text} ${car!.cite}\n` }),
          call('write_page', { path: '3_Personal/Home.md', content: `${front('Home', 'place')}\n## Current\n\n## Notes\n\n- ${lisbon!.text} ${lisbon!.cite}\n` }),
        );
      },
      tools(call('finish', { summary: 'Pages written.' })),
    ]);
    const run = await dream(root, server);
    expect(run.json, run.json.reason).toMatchObject({ status: 'ok', placed: 4 });
    expect(run.json.corrected).toEqual([
      { path: '3_Personal/Ana.md', subject: "Ana's employer", from: '', to: 'Initech' },
      { path: '3_Personal/Home.md', subject: 'home city', from: '', to: 'Lisbon' },
    ]);
    expect(await read(root, '3_Personal/Ana.md')).toContain(`# Ana\n\n## Current\n\n- Ana's employer:: Initech [[${D1}#^f-pnmssng001]]\n\n## Notes\n`);
    expect(await read(root, '3_Personal/Home.md')).toContain(`## Current\n\n- home city:: Lisbon [[${D1}#^f-pnmssng002]]\n\n## Notes\n`);
    const memory = await read(root, 'MEMORY.md');
    expect(memory).toContain("Ana's employer:: Initech");
    expect(memory).toContain('home city:: Lisbon');
    expect(await git(root, ['log', '-1', '--format=%B'])).toContain("- 3_Personal/Ana.md: Ana's employer (none) → Initech");
    expect(await read(root, '3_Personal/Me.md')).toBe(ME);
  });

  it('a plain-English value disputed on its newest day is never current: a Current line the model writes for it fails disputed_lead', async () => {
    const LOG = `# ${D1}\n\n## 09:00 · cli\n- [fact] I moved to Lisbon ^f-pndspt0001\n- [fact] I moved to Porto ^f-pndspt0002\n`;
    const root = await makeVault({ [`logs/${D1}.md`]: LOG });
    const server = await startLlm([
      tools(call('read_log', { date: D1 })),
      (request) => {
        const [lisbon, porto] = factsIn(request);
        return tools(call('write_page', { path: '3_Personal/Home.md', content: `${front('Home', 'place')}\n## Current\n\n- I live in Porto now ${porto!.cite}\n\n## Notes\n\n- ${lisbon!.text} ${lisbon!.cite}\n` }));
      },
      tools(call('finish', { summary: 'Porto is the later value.' })),
    ]);
    const run = await dream(root, server);
    expect(run.json).toMatchObject({ status: 'failed', check: 'disputed_lead' });
    expect(run.json.reason).toContain(`3_Personal/Home.md holds home city under ## Current, but the logs give it "Lisbon" and "Porto" on ${D1}`);
  });
});

describe('a run that does its work passes', () => {
  it('a competent model: a cited lead line, cited statements, navigation links; the commit and summary give the runner counts, then the model words, redacted', async () => {
    const LOG = `# ${D1}\n\n## 09:00 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-cffee00001\n- [fact] Grinds the beans by hand every morning #coffee ^f-cffee00002\n- [fact] home city:: Lisbon #location ^f-hmc1sb0n01\n`;
    const root = await makeVault({ [`logs/${D1}.md`]: LOG });
    const server = await startLlm([
      tools(call('read_log', { date: D1 })),
      (request) => {
        const [roast, grind, city] = factsIn(request);
        return tools(
          call('write_page', {
            path: '3_Personal/Coffee.md',
            content: `${front('Coffee', 'topic')}\nA dark roast drinker who grinds by hand. ${roast!.cite} ${grind!.cite}\n\n## Notes\n\n- ${roast!.text} ${roast!.cite}\n- ${grind!.text} ${grind!.cite}\n\n## Related\n\n- [[Home]]\n`,
          }),
          call('write_page', { path: '3_Personal/Home.md', content: `${front('Home', 'place')}\nSee also [[Coffee]].\n\n## Current\n\n- home city:: Lisbon ${city!.cite}\n` }),
        );
      },
      tools(call('finish', { summary: `Placed all three facts; my key is ${KEY}.` })),
    ]);
    const run = await dream(root, server);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ status: 'ok', consolidator: 'llm', facts: 3, placed: 3, uncited: 0, corrected: [], watermark: { after: D1 } });
    expect(run.json.summary).toBe(
      'placed 3 of 3 facts on pages; 0 filed in 0_Inbox/unsorted.md by the runner; pages +2 ~0 >0; 0 conflicts flagged; 0 forgotten lines removed; ' +
        `the model's summary (its own words): "Placed all three facts; my key is [redacted]."`,
    );
    expect(run.stdout).not.toContain(KEY);
    const message = await git(root, ['log', '-1', '--format=%B']);
    expect(message).toContain("The runner's counts: the consolidator placed 3 of the 3 facts on pages; pages +2 ~0 >0.");
    expect(message).toContain(`Summary: placed 3 of 3 facts on pages;`);
    expect(message).toContain(`the model's summary (its own words): "Placed all three facts; my key is [redacted]."`);
    expect(message).not.toContain(KEY);
    expect(await read(root, 'log.md')).toMatch(/ · facts 3 · placed 3 · filed 0\n$/);
    expect(await exists(root, '0_Inbox/unsorted.md')).toBe(false);
  });

  it('the offline consolidator passes every check on a normal batch, its summary marked as its own', async () => {
    const LOG1 = `# ${D1}\n\n## 09:00 · cli\n${CHORES.map((text, n) => `- [fact] ${text} #home ^${id(n)}`).join('\n')}\n- [fact] home city:: Berlin #location ^f-hmcberkn01\n- [preference] Prefers dark roast coffee ^f-cffee00001\n`;
    const LOG2 = `# ${D2}\n\n## 09:00 · cli\n- [fact] home city:: Lisbon #location ^f-hmc1sb0n01\n- [commitment] Call Maria Lopez about the garden on Friday ^f-cammara001\n- [relationship] Maria Lopez is my sister ^f-sstermar01\n- [fact] Prefers dark roast coffee ^f-cffee00002\n`;
    const root = await makeVault({ [`logs/${D1}.md`]: LOG1, [`logs/${D2}.md`]: LOG2 });
    const run = await dream(root, null);
    expect(run.json, run.json.reason).toMatchObject({ status: 'ok', consolidator: 'offline', facts: 16, placed: 16, uncited: 0, corrected: [] });
    expect(run.json.summary).toMatch(/^placed 16 of 16 facts on pages; 0 filed in 0_Inbox\/unsorted\.md by the runner; pages \+\d+ ~0 >0; 0 conflicts flagged; 0 forgotten lines removed; the offline consolidator's summary: placed 16 facts/);
    expect(await read(root, 'MEMORY.md')).toContain('home city:: Lisbon');
    expect(await read(root, 'MEMORY.md')).not.toContain('home city:: Berlin');
    expect(await read(root, 'log.md')).toMatch(/ · facts 16 · placed 16 · filed 0\n$/);
  });
});
