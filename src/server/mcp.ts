/**
 * MCP over Streamable HTTP, one endpoint per vault (/v1/vaults/{vault}/mcp): the same tools, prompts and resource as
 * `vaultkeeper mcp` (mcp/server.ts), over the one vault the URL names. Stateless: each request gets its own server and
 * transport, so the bearer token is checked on every request and no session outlives its token. The tools that
 * write (remember, forget, consolidate) need the write scope.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createServer } from '../mcp/server.js';
import type { Log } from '../mcp/tools.js';
import { ServedVaults, searchMode } from '../mcp/vaults.js';
import type { Vault } from '../vault/vault.js';

export const WRITE_TOOLS = new Set(['memory_remember', 'memory_forget', 'memory_consolidate']);

/** The tools a JSON-RPC body (one message or a batch) calls. */
export function calledTools(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const message = m as { method?: unknown; params?: { name?: unknown } } | null;
    return message !== null && typeof message === 'object' && message.method === 'tools/call' && typeof message.params?.name === 'string' ? [message.params.name] : [];
  });
}

export async function handleMcp(request: Request, body: unknown, name: string, vault: Vault, log: Log): Promise<Response> {
  const vaults = new ServedVaults([{ name, path: vault.root }], () => Promise.resolve(vault), vault);
  const server = createServer(vaults, log, { searchMode: await searchMode(vaults) });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    void server.close().catch(() => undefined);
  }
}
