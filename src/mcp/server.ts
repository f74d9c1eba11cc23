/**
 * The MCP server: the vaults as memory tools (tools.ts), prompts for the common flows (prompts.ts) and MEMORY.md
 * as a resource, over any transport. Each served vault is opened once per process (vaults.ts), so its
 * configuration is read once and its embedder loaded once.
 * It never writes to stdout itself: on stdio that stream is the protocol's, and logs go to `log`.
 */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { packageFile } from '../core/package-files.js';
import { registerPrompts } from './prompts.js';
import { readCapped, resolveReadable } from './read.js';
import { READ_CAP_BYTES, registerTools, type Log, type ServedFacts } from './tools.js';
import type { ServedVaults } from './vaults.js';

export const MEMORY_URI = 'vaultkeeper://memory';

const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string };

const INSTRUCTIONS = [
  "This server is the person's long-term memory, kept as a markdown vault.",
  'Search it (memory_search) before answering questions about the person, their projects or past decisions, and cite the results\' links.',
  'For everything about one person, project or topic call memory_context; to catch up at the start of a session call memory_recent.',
  'Remember (memory_remember) durable facts, preferences, decisions and corrections as they come up, one fact per item.',
  'Forget (memory_forget) only when asked or when a fact is wrong. MEMORY.md (resource vaultkeeper://memory) is the core memory.',
].join(' ');

export function createServer(vaults: ServedVaults, log: Log, facts: ServedFacts): McpServer {
  const server = new McpServer(
    { name: 'vaultkeeper', title: 'vaultkeeper memory', version: pkg.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  registerTools(server, vaults, log, facts);
  registerPrompts(server, vaults);
  server.registerResource(
    'memory',
    MEMORY_URI,
    {
      title: 'Core memory (MEMORY.md)',
      description: "The core memory of the server's first vault: who the person is and what matters now, regenerated after each consolidation",
      mimeType: 'text/markdown',
    },
    // Read on each request: a dream or a person may have changed it since the last read.
    async (uri) => {
      const resolved = await resolveReadable((await vaults.get(undefined)).root, 'MEMORY.md');
      const text = resolved.ok ? (await readCapped(resolved.abs, READ_CAP_BYTES)).text : '';
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
    },
  );
  return server;
}

/**
 * Serves over stdin/stdout until the client closes stdin or a signal asks to stop. When stdin ends, the
 * calls in flight are still answered (a remember commits, a dream completes or rolls back), then the process
 * exits on its own; a signal closes the connection at once, and the work in flight still finishes.
 */
export async function serveStdio(server: McpServer, log: Log): Promise<void> {
  const stopped = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
    process.stdin.once('end', () => {
      log('the client closed stdin; exiting once the calls in flight are answered');
      resolve();
    });
  });
  const stop = (signal: NodeJS.Signals): void => {
    log(`stopping: ${signal}`);
    void server.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.connect(new StdioServerTransport());
  await stopped;
}
