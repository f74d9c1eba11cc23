/**
 * A warm MCP server answers `memory_search` from its last freshness check while the kernel reports no change to the
 * vault (src/indexer/change-watch.ts): every write by another process must still show in the very next search, with
 * no wait in between. Each change below follows searches that warm the server on the unchanged vault.
 */
import { appendFile, mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CLI, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { makeLoggedVault } from '../helpers/vault.js';

const tempDir = useTempDir();

interface Found {
  results: Array<{ text: string; path: string }>;
}

describe('vaultkeeper mcp, warm', () => {
  it('never answers from before a change made by another process', async () => {
    const outside = await tempDir();
    const root = await makeLoggedVault(tempDir, {
      'logs/2026-05-01.md': '# 2026-05-01\n\n## 09:00 · cli\n- [fact] Tasted a washed Ethiopian coffee ^f-a000000001\n',
      '2_Areas/coffee.md': '# Coffee\n\nPrefers a pour-over in the morning.\n',
    });
    await writeFile(path.join(outside, 'linked.md'), '# Linked\n\nKeeps bees on the roof.\n');
    await symlink(path.join(outside, 'linked.md'), path.join(root, '2_Areas/linked.md'));
    await runJson(['--vault', root, 'reindex', '--clear']);

    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe' });
    const client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
    await client.connect(transport);
    const search = async (query: string): Promise<CallToolResult> => {
      const result = (await client.callTool({ name: 'memory_search', arguments: { query } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      return result;
    };
    const texts = async (query: string): Promise<string[]> => ((await search(query)).structuredContent as unknown as Found).results.map((r) => r.text);
    // Searches on an unchanged vault: the second arms the watch, the later ones answer from it.
    const warm = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) expect(await texts('coffee')).not.toEqual([]);
    };
    try {
      await warm();
      // Another process remembers a fact.
      await runJson(['--vault', root, 'remember', 'Bought a burr grinder', '--date', '2026-05-02']);
      expect((await texts('grinder'))[0]).toBe('Bought a burr grinder');

      await warm();
      // A person edits a page in place, as an editor that writes over the file does.
      await writeFile(path.join(root, '2_Areas/coffee.md'), '# Coffee\n\nPrefers an espresso in the morning.\n');
      expect((await texts('espresso'))[0]).toBe('Prefers an espresso in the morning.');
      expect(await texts('pour-over')).not.toContain('Prefers a pour-over in the morning.');

      await warm();
      // A person saves a page atomically (a temp file renamed over it).
      await writeFile(path.join(root, '2_Areas/.coffee.md.tmp'), '# Coffee\n\nPrefers a moka pot in the morning.\n');
      await rename(path.join(root, '2_Areas/.coffee.md.tmp'), path.join(root, '2_Areas/coffee.md'));
      expect((await texts('moka'))[0]).toBe('Prefers a moka pot in the morning.');

      await warm();
      // A person adds a line to an old log by hand.
      await appendFile(path.join(root, 'logs/2026-05-01.md'), '- [fact] Roasted chicory at home ^f-a000000002\n');
      expect((await texts('chicory'))[0]).toBe('Roasted chicory at home');

      await warm();
      // A page in a folder made after the server started watching.
      await mkdir(path.join(root, '3_Personal/kitchen'), { recursive: true });
      await writeFile(path.join(root, '3_Personal/kitchen/kettle.md'), '# Kettle\n\nThe gooseneck kettle holds a litre.\n');
      expect((await texts('gooseneck'))[0]).toBe('The gooseneck kettle holds a litre.');

      await warm();
      // A page linked in from outside the vault, changed where it lives.
      expect((await texts('bees'))[0]).toBe('Keeps bees on the roof.');
      await warm();
      await writeFile(path.join(outside, 'linked.md'), '# Linked\n\nKeeps wasps away from the roof.\n');
      expect((await texts('wasps'))[0]).toBe('Keeps wasps away from the roof.');

      await warm();
      // Another process forgets a fact.
      await runJson(['--vault', root, 'forget', 'f-a000000002']);
      expect(await texts('chicory')).not.toContain('Roasted chicory at home');

      // MEMORY.md, rewritten by hand.
      await warm();
      await writeFile(path.join(root, 'MEMORY.md'), '# Memory\n\n## Health\n\n- Allergic to hazelnuts\n');
      expect(JSON.stringify((await search('hazelnuts')).content)).toContain('Allergic to hazelnuts');
    } finally {
      await client.close();
    }
  }, 120_000);
});
