/**
 * The dashboard page (4_Resources/Dashboard.md): written by the built CLI on a real vault, committed, left
 * alone by the dream, and every Mermaid chart on it rendered by the mermaid library in headless Chromium
 * (Debian's chromium, through playwright-core, no network). A deliberately broken chart must fail the
 * same check, so the check can fail.
 *
 * Without a browser (a fresh clone on a laptop) the file says so in the test output and skips; under CI
 * (`CI_REQUIRE_BROWSER=1`, set by .ci/run, which installs chromium) a missing browser fails instead.
 */
import { accessSync, constants } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, initVault } from '../helpers/vault.js';

const CHROMIUM = findChromium();
const HOW_TO_RUN =
  'install Chromium (Debian/Ubuntu: apt-get install -y chromium; macOS: Google Chrome) or set VAULTKEEPER_CHROMIUM=/path/to/chromium, then run npx vitest run test/e2e/dashboard.test.ts';
const MERMAID = fileURLToPath(new URL('../../node_modules/mermaid/dist/mermaid.min.js', import.meta.url));
const DASHBOARD = '4_Resources/Dashboard.md';

/** The first executable Chromium or Chrome: $VAULTKEEPER_CHROMIUM, then the usual install places, then $PATH. */
function findChromium(): string | null {
  if (process.env.VAULTKEEPER_CHROMIUM === 'none') return null; // how to see the skip on a machine that has one
  const names = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
  const candidates = [
    process.env.VAULTKEEPER_CHROMIUM,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    ...(process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '').flatMap((dir) => names.map((name) => path.join(dir, name))),
  ];
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === '') continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: try the next place
    }
  }
  return null;
}

const REQUIRED = process.env.CI_REQUIRE_BROWSER === '1';
if (CHROMIUM === null && !REQUIRED) {
  console.warn(`\n[dashboard.test.ts] NOT RUN: no Chromium or Chrome found. To run the dashboard's chart checks, ${HOW_TO_RUN}.\n`);
}

function daysAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

function mermaidBlocks(page: string): string[] {
  return [...page.matchAll(/^```mermaid\n([\s\S]*?)\n```$/gm)].map((m) => m[1]!);
}

interface Rendered {
  ok: boolean;
  svg?: string;
  error?: string;
}

async function render(browser: Browser, charts: readonly string[]): Promise<Rendered[]> {
  const page = await browser.newPage();
  try {
    await page.route('**/*', (route) => route.abort()); // no network: everything comes from the local bundle
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ path: MERMAID });
    return await page.evaluate(async (sources) => {
      const mermaid = (globalThis as unknown as { mermaid: { initialize(c: object): void; render(id: string, text: string): Promise<{ svg: string }> } }).mermaid;
      mermaid.initialize({ startOnLoad: false });
      const out: Array<{ ok: boolean; svg?: string; error?: string }> = [];
      for (const [i, source] of sources.entries()) {
        try {
          out.push({ ok: true, svg: (await mermaid.render(`chart${i}`, source)).svg });
        } catch (error) {
          out.push({ ok: false, error: String(error) });
        }
      }
      return out;
    }, charts);
  } finally {
    await page.close();
  }
}

describe.skipIf(CHROMIUM === null && !REQUIRED)('the dashboard page (needs Chromium)', () => {
  const tempDir = useTempDir();
  let browser: Browser;

  beforeAll(async () => {
    // CI_REQUIRE_BROWSER=1 (.ci/run): a missing browser is a failure there, never a quiet skip.
    if (CHROMIUM === null) throw new Error(`no Chromium found although CI_REQUIRE_BROWSER=1: ${HOW_TO_RUN}`);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('charts facts, backlog, dreams, tokens and conflicts; every chart renders in Chromium', async () => {
    const root = await initVault(await tempDir());
    const vk = (...args: string[]): string[] => ['--vault', root, ...args];
    await runJson(vk('remember', 'Prefers dark roast coffee', '-t', 'coffee', '--date', daysAgo(3)));
    await runJson(vk('remember', 'home city:: Lisbon', '--date', daysAgo(2)));
    await runJson(vk('remember', 'home city:: Porto', '--date', daysAgo(2)));
    await runJson(vk('remember', 'The dashboard talk went well', '-t', 'dashboard', '--date', daysAgo(1)));
    // The daemon's own files, as its health job and LLM executor leave them.
    await writeFile(path.join(root, '.vaultkeeper/health.jsonl'), `${JSON.stringify({ at: `${daysAgo(2)}T12:00:00.000Z`, facts_pending: 1 })}\n${JSON.stringify({ at: `${daysAgo(1)}T12:00:00.000Z`, facts_pending: 3 })}\n`);
    await writeFile(path.join(root, '.vaultkeeper/llm-usage.json'), JSON.stringify({ version: 1, days: { [daysAgo(1)]: { jobs: { dream: { calls: 2, prompt_tokens: 900, completion_tokens: 300, total_tokens: 1200 } } } } }));

    const before = await runJson<{ dashboard: string | null }>(vk('status'));
    expect(before.dashboard).toBeNull();
    const first = await runCli(vk('status', '--dashboard', '--json'));
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as { dashboard: string }).dashboard).toBe(DASHBOARD);

    const dream = await runJson<{ status: string; commit: string }>(vk('dream', '--force'));
    expect(dream.status).toBe('ok');
    // The dream never writes the generated page, and puts the #dashboard fact on a page of its own.
    expect(await git(root, ['show', '--name-only', '--format=', dream.commit])).not.toContain(DASHBOARD);
    const placed = (await git(root, ['grep', '-l', 'The dashboard talk went well', 'HEAD', '--', '*.md'])).split('\n').filter((l) => l !== '');
    expect(placed.map((l) => l.replace(/^HEAD:/, ''))).not.toContain(DASHBOARD);
    expect(placed.length).toBeGreaterThan(0);

    await runJson(vk('status', '--dashboard'));
    const page = await readFile(path.join(root, DASHBOARD), 'utf8');
    expect(page).toMatch(/^---\ntitle: Dashboard\ntype: dashboard/);
    expect(page).toContain('**home city**');
    const log = await git(root, ['log', '--format=%B%x00', '--', DASHBOARD]);
    expect(log.split('\0').filter((m) => m.includes('Vaultkeeper-Op: dashboard'))).toHaveLength(2);
    // Nothing changed since: no new commit.
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    await runJson(vk('status', '--dashboard'));
    expect((await git(root, ['rev-parse', 'HEAD'])).trim()).toBe(head);
    expect((await runCli(vk('status'))).stdout).toContain(`dashboard  ${DASHBOARD}`);

    // Growth, facts per day, backlog, tokens; one dream and one open conflict are sentences, not pies of one slice.
    const charts = mermaidBlocks(page);
    expect(charts.map((c) => c.split('\n')[0])).toEqual(['xychart-beta', 'xychart-beta', 'xychart-beta', 'xychart-beta']);
    expect(charts[0]).toContain('Live facts in the vault');
    expect(page).toContain('The one dream of the last 14 days: consolidated.');
    expect(page).toMatch(/\| when \| run \| outcome \| what it placed \|\n\| --- .*\n\| \d{4}-\d{2}-\d{2} \d{2}:\d{2} \| r-\d{8}-\d{6} \| ok \| \d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}: \d+ facts, \d+ placed on pages/);
    expect(page).toContain('1 open, none resolved yet.');
    expect(page).toMatch(/## Top entities\n\n- \[\[[^\]|]+\|[^\]]+\]\]: \d+ facts?\n/);
    // The dashboard is never an answer: its chart source and its words are not in the index.
    for (const query of ['xychart', 'dreams outcome backlog']) {
      const found = await runJson<{ results: { path: string }[] }>(vk('search', query));
      expect(found.results.map((r) => r.path)).not.toContain(DASHBOARD);
    }
    const rendered = await render(browser, charts);
    for (const [i, result] of rendered.entries()) {
      expect(result.error, charts[i]).toBeUndefined();
      expect(result.ok).toBe(true);
      expect(result.svg).toMatch(/^<svg[\s>]/);
      expect(result.svg).not.toMatch(/Syntax error/i);
    }
    expect(rendered[0]!.svg).toContain('Live facts');
  }, 120_000);

  it('fails a broken chart, so the render check can fail', async () => {
    const [broken, good] = await render(browser, ['xychart-beta\n  x-axis ["a", \n  bar [1, 2', 'pie\n  "a" : 1']);
    expect(broken!.ok).toBe(false);
    expect(broken!.error).toMatch(/Parse error/);
    expect(good!.ok).toBe(true);
  }, 60_000);
});
