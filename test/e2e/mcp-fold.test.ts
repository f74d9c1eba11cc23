/**
 * The MCP server lives long and searches often: the rows its searches' updates write outside the full-text index
 * (searched flat until a compaction) are folded in once it has been quiet a while (src/vault/idle-fold.ts), as the
 * daemon does; a `remember` or a one-note update in the CLI leaves them there (reindex.ts: FOLD_IN_ROWS).
 */
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { readManifestSummary } from '../../src/indexer/manifest.js';
import { CLI, runJson } from '../helpers/cli.js';
import { foldedWithin, unindexedRows } from '../helpers/flat-rows.js';
import { useTempDir } from '../helpers/tmp.js';

const tempDir = useTempDir();

describe('vaultkeeper mcp, once quiet', () => {
  it("folds the rows a search's update wrote into the full-text index", async () => {
    const root = path.join(await tempDir(), 'vault');
    await runJson(['init', root]);
    await writeFile(path.join(root, '.vaultkeeper/config.yaml'), 'index:\n  embedder: none\nextract:\n  sessions: []\n');
    const facts = Array.from({ length: 10 }, (_, i) => `- [fact] Tasted coffee number ${i} ^f-a${String(i).padStart(9, '0')}`);
    await writeFile(path.join(root, 'logs/2026-05-01.md'), `# 2026-05-01\n\n## 09:00 · cli\n${facts.join('\n')}\n`);
    await runJson(['--vault', root, 'reindex', '--clear']);
    expect(await unindexedRows(root)).toBe(0);

    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--vault', root, 'mcp'], stderr: 'pipe' });
    const client = new Client({ name: 'vaultkeeper-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      // A person's edit: the next search brings the index up to date, one row more, outside the full-text index.
      await appendFile(path.join(root, 'logs/2026-05-01.md'), '- [fact] Bought a coffee grinder ^f-b000000001\n');
      const result = (await client.callTool({ name: 'memory_search', arguments: { query: 'grinder' } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('coffee grinder');
      expect(await foldedWithin(root, 30_000)).toBe(0);
      // The manifest then counts no writes since the compaction: the next idle check reads it alone.
      expect((await readManifestSummary(root))?.writes).toBe(0);
      // And it still answers, the same.
      const again = (await client.callTool({ name: 'memory_search', arguments: { query: 'grinder' } })) as CallToolResult;
      expect(JSON.stringify(again.content)).toContain('coffee grinder');
    } finally {
      await client.close();
    }
  }, 90_000);
});
