/**
 * Secrets never persist (DESIGN §9). A key is planted in the environment (under a variable whose name
 * looks like nothing secret, so only the configured `api_key_env` identifies it), and failing dreams run
 * against a loopback server that echoes it back: 400, 401 and 500 with a JSON error, 500 with a text body,
 * a model that writes the key into a page, and a base URL with user:password@. Each vault dreams twice,
 * so whatever records the failure (commit messages, log.md, run logs, state.json, usage) sees the echo.
 * Then every file of the vault (.vaultkeeper/ and .git/ included), every git object and everything the
 * CLI printed is scanned for the key and the password: none holds them. The daemon gets the same: its
 * start-up check and a dream on SIGUSR1 meet the echoing server, then daemon.log, daemon.out, status.json,
 * jobs.json and the rest are scanned.
 */
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { DAEMON_CONFIG, until, useDaemons } from '../helpers/daemon.js';
import { call, tools, useFakeLlm, type ChatRequest, type Reply, type Step } from '../helpers/fake-llm.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { git, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();
const startLlm = useFakeLlm();
const execFileAsync = promisify(execFile);

/** No key shape (no sk-, no Bearer-looking name): only the configured variable makes it a secret. */
const KEY = 'plantedKEYq7Zr2Vx9Lm4Np8Tw';
const PASSWORD = 'hunter2Pw9Qs5Rt1';
const KEY_ENV = 'VK_LLM_CREDENTIAL_FOR_TEST';

const echoAuth = (request: ChatRequest): string => {
  const auth = String(request.headers.authorization ?? '');
  const basic = /^Basic (.+)$/.exec(auth)?.[1];
  return basic === undefined ? auth : `${auth} (${Buffer.from(basic, 'base64').toString('utf8')})`;
};

interface Scenario {
  name: string;
  step: Step;
  userinfo?: boolean;
  /** Extra config (under llm:), e.g. waiting instead of falling back. */
  llm?: string;
}

const json = (status: number) => (request: ChatRequest): Reply => ({ status, message: `invalid credentials: ${echoAuth(request)} for ${request.path}` });

const SCENARIOS: Scenario[] = [
  { name: '400 with a JSON error', step: json(400) },
  { name: '401 with a JSON error', step: json(401) },
  { name: '500 with a JSON error', step: json(500) },
  { name: '500 with a text body', step: (request) => ({ status: 500, raw: `upstream failed; your header was ${echoAuth(request)}`, contentType: 'text/plain' }) },
  { name: 'a base URL with user:password@', step: json(401), userinfo: true },
  { name: '401 with llm.fallback: wait', step: json(401), llm: '  fallback: wait\n' },
];

/** Every byte the vault holds on disk (working files, .vaultkeeper/, .git/ raw) and every git object, decompressed. */
async function everything(root: string): Promise<string[]> {
  const texts: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) texts.push((await readFile(path.join(entry.parentPath, entry.name))).toString('latin1'));
  }
  const { stdout } = await execFileAsync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: root, maxBuffer: 512 * 1024 * 1024, encoding: 'latin1' });
  texts.push(stdout);
  return texts;
}

const hits = (texts: readonly string[], secret: string): number => texts.reduce((n, t) => n + t.split(secret).length - 1, 0);

async function vaultWithDays(llm = ''): Promise<string> {
  const root = await initVault(await tempDir());
  await writeTree(root, {
    '.vaultkeeper/config.yaml': `timezone: UTC\ndream:\n  max_retries: 2\nllm:\n  max_attempts: 2\n${llm}`,
    'logs/2025-06-01.md': '# 2025-06-01\n\n## 09:00 · cli\n- [preference] Prefers dark roast coffee #coffee ^f-aaaaaaaaaa\n',
  });
  await git(root, ['add', '--all']);
  await git(root, ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'my notes']);
  return root;
}

describe('a planted key never persists and is never printed', () => {
  for (const scenario of SCENARIOS) {
    it(`after failing runs: ${scenario.name}`, async () => {
      const root = await vaultWithDays(scenario.llm);
      const server = await startLlm([], { fallback: scenario.step });
      const base = scenario.userinfo ? server.baseUrl.replace('http://', `http://ana:${PASSWORD}@`) : server.baseUrl;
      const env = { VAULTKEEPER_LLM_BASE_URL: base, VAULTKEEPER_LLM_MODEL: 'echo-model', VAULTKEEPER_LLM_API_KEY_ENV: KEY_ENV, [KEY_ENV]: scenario.userinfo ? undefined : KEY };
      const printed: string[] = [];
      const statuses: string[] = [];
      for (let run = 0; run < 2; run++) {
        const result = await runCli(['--vault', root, 'dream', '--force', '--json'], { env });
        printed.push(result.stdout, result.stderr);
        statuses.push((JSON.parse(result.stdout) as { status: string }).status);
      }
      // The server was reached and echoed the secret: the test would prove nothing otherwise.
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests.some((r) => echoAuth(r).includes(scenario.userinfo ? PASSWORD : KEY))).toBe(true);
      // A failing endpoint falls back to the offline consolidator (llm.fallback), or the run fails and is retried.
      for (const status of statuses) expect(['ok', 'noop', 'gated', 'failed', 'skipped']).toContain(status);

      const texts = await everything(root);
      expect(hits(texts, KEY), 'the key in the vault or git').toBe(0);
      expect(hits(texts, PASSWORD), 'the URL password in the vault or git').toBe(0);
      expect(hits(printed, KEY), 'the key on the terminal').toBe(0);
      expect(hits(printed, PASSWORD), 'the URL password on the terminal').toBe(0);
    });
  }

  it('a model that writes the key into a page gets a refusal, and the key stays out of the vault', async () => {
    const root = await vaultWithDays();
    const script: Step[] = [
      tools(call('write_page', { path: '2_Areas/coffee.md', content: `# Coffee\n\n- the key is ${KEY} [[2025-06-01#^f-aaaaaaaaaa]]\n` })),
      tools(call('write_page', { path: '2_Areas/coffee.md', content: '# Coffee\n\n- Prefers dark roast coffee [[2025-06-01#^f-aaaaaaaaaa]]\n' })),
      tools(call('finish', { summary: `done; by the way the key was ${KEY}` })),
    ];
    const server = await startLlm(script);
    const env = { VAULTKEEPER_LLM_BASE_URL: server.baseUrl, VAULTKEEPER_LLM_MODEL: 'echo-model', VAULTKEEPER_LLM_API_KEY_ENV: KEY_ENV, [KEY_ENV]: KEY };
    const result = await runCli(['--vault', root, 'dream', '--force', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { status: string }).status).toBe('ok');
    const refusal = server.requests[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    expect(refusal.join('\n')).toMatch(/holds the API key/);
    expect(await readFile(path.join(root, '2_Areas/coffee.md'), 'utf8')).toContain('dark roast');
    const texts = await everything(root);
    expect(hits(texts, KEY)).toBe(0);
    expect(hits([result.stdout, result.stderr], KEY)).toBe(0);
  });
});

describe('the daemon never persists a planted key', () => {
  const daemons = useDaemons(tempDir);
  const DAEMON_SCENARIOS: Scenario[] = [
    { name: '401 with a JSON error, llm.fallback: wait', step: json(401), llm: '  fallback: wait\n' },
    { name: '500 with a text body, a base URL with user:password@, llm.fallback: offline', step: (request) => ({ status: 500, raw: `upstream failed; your header was ${echoAuth(request)}`, contentType: 'text/plain' }), userinfo: true },
  ];

  interface LogEntry {
    level: string;
    msg: string;
    job?: string;
    why?: string;
  }
  const logEntries = async (root: string): Promise<LogEntry[]> =>
    (await readFile(path.join(root, '.vaultkeeper/daemon.log'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as LogEntry);

  for (const scenario of DAEMON_SCENARIOS) {
    it(`start-up check and a dream: ${scenario.name}`, { timeout: 180_000 }, async () => {
      const server = await startLlm([], { fallback: scenario.step });
      const base = scenario.userinfo ? server.baseUrl.replace('http://', `http://ana:${PASSWORD}@`) : server.baseUrl;
      const env = { VAULTKEEPER_LLM_BASE_URL: base, VAULTKEEPER_LLM_MODEL: 'echo-model', VAULTKEEPER_LLM_API_KEY_ENV: KEY_ENV, [KEY_ENV]: scenario.userinfo ? undefined : KEY };
      const root = await daemons.vault([['Prefers dark roast coffee', '-t', 'coffee', '--date', '2025-06-01']], `${DAEMON_CONFIG}timezone: UTC\nllm:\n  max_attempts: 2\n${scenario.llm ?? ''}`);
      const { pid } = await daemons.start(root, { env });
      await until(async () => (await logEntries(root)).some((e) => e.job === 'llm'), 'the start-up check of the LLM');
      process.kill(pid, 'SIGUSR1');
      const dreamt = await until(async () => (await logEntries(root)).find((e) => e.job === 'dream' && (e.why?.includes('event:sigusr1') || e.level === 'error')), 'the dream job', 120_000);
      const printed = [(await runCli(['--vault', root, 'status'], { env })).stdout, (await runCli(['--vault', root, 'daemon', 'log'], { env })).stdout];
      const stopped = await runJson<{ stopped: boolean }>(['--vault', root, 'daemon', 'stop'], { env });
      expect(stopped.stopped).toBe(true);

      // The server was reached and echoed the secret: the test would prove nothing otherwise.
      expect(server.requests.some((r) => echoAuth(r).includes(scenario.userinfo ? PASSWORD : KEY))).toBe(true);
      expect(dreamt.msg, 'the dream met the failing LLM').toMatch(scenario.llm === undefined ? /^ok: / : /waiting/);
      const texts = await everything(root);
      const states: string[] = [];
      for (const state of ['daemon.log', 'status.json', 'jobs.json']) {
        const text = await readFile(path.join(root, '.vaultkeeper', state), 'utf8');
        states.push(text);
        expect(hits([text], KEY) + hits([text], PASSWORD), `the secret in ${state}`).toBe(0);
      }
      // The echo reached the daemon's records (and was redacted there), so the scan above proves something.
      expect(states.join('\n')).toContain('[redacted]');
      expect(hits(texts, KEY), 'the key in the vault or git').toBe(0);
      expect(hits(texts, PASSWORD), 'the URL password in the vault or git').toBe(0);
      expect(hits(printed, KEY) + hits(printed, PASSWORD), 'the secret on the terminal').toBe(0);
    });
  }
});
