/**
 * No secret reaches a log (DESIGN §9): facts with planted secrets (a cloud key, a token, a PIN said in words, a
 * card number) come in through every write path (`remember`, `remember --stdin`, `ingest`, MCP memory_remember),
 * and none of the secrets is in the log, the commit, or any git object afterwards, while look-alikes (a version,
 * a date, an order number, a phone number) are kept word for word. Under `capture.secrets: refuse` nothing is stored.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, runJson } from '../helpers/cli.js';
import { hits, vaultBytes } from '../helpers/scan-vault.js';
import { useTempDir } from '../helpers/tmp.js';
import { expectOneLineError, git, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();

const CLOUD_KEY = 'AKIAQYLPMN5HHHFPZAM2';
const TOKEN = 'ghp_R8x2Kq9Lm4Np7Tw3Vz6Yb1Cd5Fg0Hj2Kl8Mn';
const PIN = '4471';
const CARD = '4242 4242 4242 4242';
const SECRETS = [CLOUD_KEY, TOKEN, CARD, CARD.replace(/ /g, '')];

const PLANTED = [`The deploy key is ${CLOUD_KEY}`, `My GitHub token is ${TOKEN}`, `my PIN is ${PIN}`, `Paid with card ${CARD}`];
const LOOK_ALIKES = ['Upgraded node to 20.19.4 on 2026-06-09', 'Order 1234567812345678 arrives on Friday', 'Call the office at +44 20 7946 0958'];

interface RememberJson {
  facts: { id: string; text: string; path: string }[];
  commit: string;
  redacted: { id: string; kinds: string[] }[];
  redacted_note?: string;
}

async function logsText(root: string): Promise<string> {
  const { readdir } = await import('node:fs/promises');
  const files = await readdir(path.join(root, 'logs'));
  return (await Promise.all(files.map((f) => readFile(path.join(root, 'logs', f), 'utf8')))).join('\n');
}

async function expectNoSecrets(root: string): Promise<void> {
  const all = await vaultBytes(root);
  for (const secret of SECRETS) expect(hits(all, secret), `${secret} in the vault or git`).toBe(0);
  const log = await logsText(root);
  expect(log).not.toMatch(new RegExp(`PIN is ${PIN}`));
  const messages = await git(root, ['log', '--all', '--format=%B']);
  expect(messages).not.toContain(PIN);
  for (const secret of SECRETS) expect(messages).not.toContain(secret);
  for (const kept of LOOK_ALIKES) expect(log).toContain(kept);
}

describe('no secret reaches the log', () => {
  it('remember redacts each planted secret, says so, and keeps the look-alikes', async () => {
    const root = await initVault(await tempDir());
    const results: RememberJson[] = [];
    for (const text of [...PLANTED, ...LOOK_ALIKES]) results.push(await runJson<RememberJson>(['--vault', root, 'remember', text]));
    expect(results.slice(0, PLANTED.length).map((r) => r.redacted[0]?.kinds)).toEqual([['aws key'], ['github token'], ['pin'], ['card number']]);
    expect(results.slice(PLANTED.length).every((r) => r.redacted.length === 0)).toBe(true);
    expect(results[2]!.facts[0]!.text).toBe('my PIN is [redacted: pin]');
    expect(results[2]!.redacted_note).toMatch(/stored with a secret replaced by a marker \(pin\)/);
    // The text output says so too, on stderr, without the secret.
    const printed = await runCli(['--vault', root, 'remember', 'the alarm code is 9138']);
    expect(printed.code).toBe(0);
    expect(printed.stderr).toMatch(/note: f-[a-z0-9]{10} was stored with a secret replaced by a marker \(access code\)/);
    expect(printed.stdout + printed.stderr).not.toContain('9138');
    await expectNoSecrets(root);
    expect(await logsText(root)).not.toContain('9138');
  });

  it('remember --stdin (an import) redacts the same way', async () => {
    const root = await initVault(await tempDir());
    const input = [...PLANTED, ...LOOK_ALIKES.map((text) => JSON.stringify({ text, category: 'fact' }))].join('\n');
    const result = await runJson<RememberJson>(['--vault', root, 'remember', '--stdin'], { input });
    expect(result.redacted).toHaveLength(PLANTED.length);
    await expectNoSecrets(root);
  });

  it('ingest (the session watcher calls the same path) redacts secrets a person typed into a transcript', async () => {
    const dir = await tempDir();
    const root = await initVault(path.join(dir, 'vault'));
    const turn = (text: string, i: number): string =>
      JSON.stringify({ type: 'user', sessionId: 'aaaa1111-2222', cwd: '/home/ana/app', timestamp: `2026-06-09T13:3${i}:00Z`, message: { role: 'user', content: text } });
    const transcript = path.join(dir, 'session.jsonl');
    await writeFile(transcript, [`Remember that my PIN is ${PIN}.`, `I decided the deploy key is ${CLOUD_KEY}.`, `I prefer paying with card ${CARD}.`, 'I decided to upgrade node to 20.19.4.'].map(turn).join('\n'));
    const result = await runJson<{ facts: number; appended: { text: string }[] }>(['--vault', root, 'ingest', transcript, '--offline']);
    expect(result.facts).toBeGreaterThan(0);
    const all = await vaultBytes(root);
    for (const secret of SECRETS) expect(hits(all, secret), secret).toBe(0);
    expect(await logsText(root)).toContain('20.19.4');
    // The secrets' facts were extracted and stored with markers, so the scan above is not vacuous.
    expect(await logsText(root)).toMatch(/\[redacted: (pin|aws key|card number)\]/);
    expect(await logsText(root)).not.toMatch(/PIN is 4471/);
    // Ingesting again appends nothing: the redacted fact is a duplicate of itself.
    const again = await runJson<{ facts: number }>(['--vault', root, 'ingest', transcript, '--offline']);
    expect(again.facts).toBe(0);
  });

  it("a fact's tags are scanned too: a tag holding a secret is left out, a look-alike tag kept", async () => {
    const root = await initVault(await tempDir());
    const result = await runJson<RememberJson & { facts: { tags: string[] }[] }>([
      '--vault', root, 'remember', 'Set up the release pipeline', '--tag', TOKEN, '--tag', `door-code-${PIN}`, '--tag', 'release-2026', '--tag', 'v20/19',
    ]);
    expect(result.facts[0]!.tags).toEqual(['release-2026', 'v20/19']);
    expect(result.redacted[0]?.kinds).toEqual(expect.arrayContaining(['github token']));
    expect(result.redacted_note).toMatch(/stored with a secret replaced by a marker/);
    expect(hits(await vaultBytes(root), TOKEN)).toBe(0);
    expect(await logsText(root)).not.toMatch(new RegExp(`code-${PIN}`));
    // Under refuse, the fact is refused for its tag alone.
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'capture:\n  secrets: refuse\n');
    const refused = await runCli(['--vault', root, 'remember', 'Rotated the deploy token', '--tag', TOKEN]);
    expectOneLineError(refused, 1, /the fact holds a secret \(github token\); nothing was stored/);
    expect(hits(await vaultBytes(root), TOKEN)).toBe(0);
  });

  it('MCP memory_remember redacts and says so in its result', async () => {
    const root = await initVault(await tempDir());
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe' });
    const client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: 'memory_remember', arguments: { facts: [...PLANTED, ...LOOK_ALIKES].map((text) => ({ text })) } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const content = result.content[0];
      const body = result.structuredContent as unknown as RememberJson;
      expect(body.redacted).toHaveLength(PLANTED.length);
      expect(JSON.stringify(body)).not.toContain(CLOUD_KEY);
      expect(content?.type === 'text' ? content.text : '').not.toContain(CLOUD_KEY);
    } finally {
      await client.close();
    }
    await expectNoSecrets(root);
  });

  it('capture.secrets: refuse stores nothing and fails with one line', async () => {
    const root = await initVault(await tempDir());
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'capture:\n  secrets: refuse\n');
    await git(root, ['commit', '--quiet', '-am', 'config']);
    const before = await git(root, ['rev-parse', 'HEAD']);
    const result = await runCli(['--vault', root, 'remember', `my PIN is ${PIN}`]);
    expectOneLineError(result, 1, /the fact holds a secret \(pin\); nothing was stored/);
    expect(result.stderr).not.toContain(PIN);
    expect(await git(root, ['rev-parse', 'HEAD'])).toBe(before);
    const batch = await runCli(['--vault', root, 'remember', '--stdin'], { input: `fine fact\nwifi password: Tr0ub4dor&3\n` });
    expectOneLineError(batch, 1, /fact 2 holds a secret \(password\)/);
    expect(await git(root, ['rev-parse', 'HEAD'])).toBe(before);
    const kept = await runJson<RememberJson>(['--vault', root, 'remember', LOOK_ALIKES[0]!]);
    expect(kept.facts[0]!.text).toBe(LOOK_ALIKES[0]);
    const all = await vaultBytes(root);
    expect(hits(all, 'Tr0ub4dor&3')).toBe(0);
  });
});
