/**
 * Prompts for the common flows, as a client offers them to a person (e.g. /mcp__vaultkeeper__recall in Claude
 * Code): recall at the start of a session, remember this session, what do you know about X. Each carries what it
 * can read now (MEMORY.md, the subject's context) so the model starts with it rather than with a tool call.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { readCapped, resolveReadable } from './read.js';
import type { ServedVaults } from './vaults.js';

/** MEMORY.md is short by design; a prompt carries at most this much of it. */
const MEMORY_CAP_BYTES = 32 * 1024;

const vaultArg = z.string().optional().describe('Which vault (default: the server\'s first)');

const user = (text: string): GetPromptResult => ({ messages: [{ role: 'user', content: { type: 'text', text } }] });

export function registerPrompts(server: McpServer, vaults: ServedVaults): void {
  server.registerPrompt(
    'recall',
    { title: 'Recall (session start)', description: 'Start a session with the core memory and what changed lately', argsSchema: { vault: vaultArg } },
    async ({ vault }) => {
      const v = await vaults.get(vault);
      const resolved = await resolveReadable(v.root, 'MEMORY.md');
      const memory = resolved.ok ? (await readCapped(resolved.abs, MEMORY_CAP_BYTES)).text.trim() : '(MEMORY.md is empty)';
      return user(
        `Here is my core memory (MEMORY.md)${vault === undefined ? '' : ` from vault ${vault}`}:\n\n${memory}\n\n` +
          'Call memory_recent to see what changed lately, and memory_search before answering about me, my projects or past decisions; cite the links you use.',
      );
    },
  );

  server.registerPrompt(
    'remember_session',
    { title: 'Remember this session', description: 'Save the durable facts of this conversation', argsSchema: { vault: vaultArg } },
    ({ vault }) =>
      user(
        'Look back over this conversation and call memory_remember once with the durable facts it holds: preferences, decisions, ' +
          'corrections, commitments, facts about people and projects. One fact per item, each standing on its own (names, not "he"), ' +
          `with its category; skip small talk and anything already remembered; never store secrets (passwords, keys, codes).${vault === undefined ? '' : ` Use vault: "${vault}".`}`,
      ),
  );

  server.registerPrompt(
    'about',
    { title: 'What do you know about…', description: 'Everything the memory holds about a person, project or topic', argsSchema: { subject: z.string().describe('Who or what, e.g. "Caroline"'), vault: vaultArg } },
    async ({ subject, vault }) => {
      const context = await (await vaults.get(vault)).context(subject, {});
      return user(
        `What do you know about ${subject}? Here is what my memory holds (memory_context):\n\n${JSON.stringify(context)}\n\n` +
          'Answer from it, citing the links; if it is thin, call memory_search with other words before saying you do not know.',
      );
    },
  );
}
