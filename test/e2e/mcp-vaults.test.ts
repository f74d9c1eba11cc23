/**
 * Many vaults, one server (issue 27): `vaultkeeper vaults add|list|remove` names vaults in a registry outside
 * every vault; `vaultkeeper mcp` serves them all, tools take an optional `vault`, memory_search spans them with
 * vault: "all", and each vault keeps its own lock, git and index.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { withWriteLock } from '../../src/core/lock.js';
import { CLI, runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { commitSubjects, git, initVault } from '../helpers/vault.js';

const tempDir = useTempDir();

interface Hit {
  vault: string;
  path: string;
  text: string;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error(`not text: ${JSON.stringify(result)}`);
  return content.text;
}

describe('vaultkeeper vaults', () => {
  it('adds, lists and removes names in a registry outside every vault', async () => {
    const dir = await tempDir();
    const work = await initVault(path.join(dir, 'w'));
    const home = await initVault(path.join(dir, 'h'));
    const env = { XDG_CONFIG_HOME: path.join(dir, 'config') };
    expect(await runJson(['vaults', 'add', 'work', work], { env })).toEqual({ name: 'work', path: work });
    expect(await runJson(['vaults', 'add', 'home'], { env, cwd: home })).toEqual({ name: 'home', path: home });
    expect(await runJson(['vaults', 'add', 'work', work], { env })).toEqual({ name: 'work', path: work }); // again: the same
    const registry = path.join(dir, 'config', 'vaultkeeper', 'vaults.json');
    expect(await runJson(['vaults', 'list'], { env })).toEqual({ registry, vaults: [{ name: 'work', path: work }, { name: 'home', path: home }] });
    expect(JSON.parse(await readFile(registry, 'utf8'))).toEqual({ vaults: [{ name: 'work', path: work }, { name: 'home', path: home }] });
    // Nothing about the registry in either vault.
    for (const root of [work, home]) expect(await git(root, ['status', '--porcelain'])).toBe('');

    const taken = await runCli(['vaults', 'add', 'work', home], { env });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/the name 'work' is taken by .*; remove it first: vaultkeeper vaults remove work/);
    const notVault = await runCli(['vaults', 'add', 'notes', dir], { env });
    expect(notVault.code).toBe(2);
    expect(notVault.stderr).toMatch(/is not a vault; create one with: vaultkeeper init/);
    const badName = await runCli(['vaults', 'add', 'My Notes', work], { env });
    expect(badName.stderr).toMatch(/'My Notes' is not a vault name/);

    expect(await runJson(['vaults', 'remove', 'home'], { env })).toEqual({ name: 'home', path: home });
    expect((await runCli(['vaults', 'list'], { env })).stdout).toBe(`work  ${work}\n`);
    const gone = await runCli(['vaults', 'remove', 'home'], { env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no vault named 'home'; vaultkeeper vaults list shows the names/);
  }, 60_000);
});

describe('one MCP server, two vaults', () => {
  it('writes to the vault named, searches one or both, and locks each on its own', async () => {
    const dir = await tempDir();
    const work = await initVault(path.join(dir, 'w'));
    const home = await initVault(path.join(dir, 'h'));
    const env = { XDG_CONFIG_HOME: path.join(dir, 'config') };
    await runJson(['vaults', 'add', 'work', work], { env });
    await runJson(['vaults', 'add', 'home', home], { env });
    await runJson(['--vault', work, 'remember', 'The quarterly report is due on Friday']);
    await runJson(['--vault', home, 'remember', 'The garden needs a new hose before Friday']);

    const client = new Client({ name: 'vk-vaults-test', version: '1.0.0' });
    // Started on the work vault, as a host in that folder would; home comes from the registry.
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', work, 'mcp'], stderr: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'memory_search')!.description).toContain('Vaults: work, home (default work).');
      for (const tool of tools) expect(tool.inputSchema.properties, tool.name).toHaveProperty('vault');

      const search = async (args: Record<string, unknown>): Promise<{ hits: Hit[]; text: string }> => {
        const result = await client.callTool({ name: 'memory_search', arguments: args });
        expect(result.isError, text(result)).toBeFalsy();
        return { hits: (result.structuredContent as { results: Hit[] }).results, text: text(result) };
      };
      expect((await search({ query: 'Friday' })).hits.map((h) => [h.vault, h.text])).toEqual([['work', 'The quarterly report is due on Friday']]);
      expect((await search({ query: 'Friday', vault: 'home' })).hits.map((h) => [h.vault, h.text])).toEqual([['home', 'The garden needs a new hose before Friday']]);
      const both = await search({ query: 'Friday', vault: 'all' });
      expect(both.hits.map((h) => h.vault).sort()).toEqual(['home', 'work']);
      // Across vaults each line names its vault.
      for (const line of both.text.trimEnd().split('\n')) expect(line).toMatch(/^\d\.\d\d (work|home):\d{4}-\d\d-\d\d:\d+ /);

      const unknown = await client.callTool({ name: 'memory_search', arguments: { query: 'Friday', vault: 'play' } });
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toMatch(/no vault named 'play' is served here; vault is one of: work, home/);

      // A remember into home lands in home's log and git alone.
      const workHead = (await git(work, ['rev-parse', 'HEAD'])).trim();
      const remembered = await client.callTool({ name: 'memory_remember', arguments: { facts: [{ text: 'Planted basil by the door' }], vault: 'home' } });
      expect(remembered.isError, text(remembered)).toBeFalsy();
      expect((await commitSubjects(home))[0]).toMatch(/remember/);
      expect((await git(work, ['rev-parse', 'HEAD'])).trim()).toBe(workHead);
      expect(await git(home, ['grep', '-c', 'Planted basil', 'HEAD', '--', 'logs'])).toMatch(/:1$/m);
      const read = await client.callTool({ name: 'memory_read', arguments: { path: 'index.md', vault: 'home' } });
      expect(read.isError).toBeFalsy();

      // Each vault its own lock: while work's write lock is held, home still takes a remember, and work's waits.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const holder = withWriteLock(work, async () => {
        holding();
        await released;
      });
      await held;
      let workDone = false;
      const workCall = client.callTool({ name: 'memory_remember', arguments: { facts: [{ text: 'Booked the review room' }] } }).then((r) => {
        workDone = true;
        return r;
      });
      const homeCall = await client.callTool({ name: 'memory_remember', arguments: { facts: [{ text: 'Watered the tomatoes' }], vault: 'home' } });
      expect(homeCall.isError, text(homeCall)).toBeFalsy();
      expect(workDone).toBe(false);
      release();
      await holder;
      const workResult = await workCall;
      expect(workResult.isError, text(workResult)).toBeFalsy();
      expect(await readFile(path.join(work, (workResult.structuredContent as { facts: Array<{ path: string }> }).facts[0]!.path), 'utf8')).toContain('Booked the review room');
      expect((await search({ query: 'tomatoes review', vault: 'all' })).hits.map((h) => `${h.vault}: ${h.text}`).sort()).toEqual(['home: Watered the tomatoes', 'work: Booked the review room']);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('serves the registry alone when started outside any vault', async () => {
    const dir = await tempDir();
    const home = await initVault(path.join(dir, 'h'));
    const env = { XDG_CONFIG_HOME: path.join(dir, 'config') };
    await runJson(['vaults', 'add', 'home', home], { env });
    await runJson(['--vault', home, 'remember', 'Planted basil by the door']);
    const client = new Client({ name: 'vk-vaults-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd: dir, stderr: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } }));
    try {
      const result = await client.callTool({ name: 'memory_search', arguments: { query: 'basil' } });
      expect(text(result)).toMatch(/Planted basil by the door/);
    } finally {
      await client.close();
    }
  }, 60_000);
});
