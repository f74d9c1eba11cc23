/**
 * The memory tools: each calls the Vault API of the vault it names (default: the server's first) and nothing
 * else, and answers with compact text and structuredContent, or a tool error that names
 * the next call: compact text for the model with the full data as structuredContent (answers.ts, search-output.ts).
 * memory_read is the one exception: it reads the file itself, behind its guard.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import type { Vault } from '../vault/vault.js';
import { readCapped, readLines, resolveReadable } from './read.js';
import { ConsolidateOutput, consolidateText, ContextOutput, contextText, ForgetOutput, forgetText, ReadOutput, RecentOutput, recentText, RememberOutput, rememberText, StatusOutput, statusText } from './answers.js';
import { answer, capText, errorResult, errorText, type Rewrites } from './results.js';
import { SearchOutput, searchText, withVault, type SearchOutputValue } from './search-output.js';
import { ALL_VAULTS, type ServedVaults } from './vaults.js';
import { ConsolidateInput, ContextInput, ForgetInput, ReadInput, RecentInput, RememberInput, SearchInput, StatusInput, withoutVault } from './schemas.js';

export type Log = (line: string) => void;

/** memory_read returns at most this much of a file. */
export const READ_CAP_BYTES = 256 * 1024;
/** memory_consolidate returns at most this much of a dry run's diff. */
export const DIFF_CAP_CHARS = 100_000;

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Handler<A> = (args: A, extra: Extra) => Promise<CallToolResult>;

/** Runs a handler, turning a throw into a tool error, and logs the call to stderr. */
function guarded<A>(name: string, log: Log, rewrites: Rewrites, handler: Handler<A>): Handler<A> {
  return async (args, extra) => {
    const started = Date.now();
    try {
      const result = await handler(args, extra);
      log(`${name} ${result.isError ? 'refused' : 'ok'} (${Date.now() - started} ms)`);
      return result;
    } catch (error) {
      log(`${name} failed (${Date.now() - started} ms): ${errorMessage(error).split('\n')[0]}`);
      // An error the program did not expect: its stack, for whoever reads the server's log.
      if (!(error instanceof VaultkeeperError) && error instanceof Error && error.stack) log(error.stack);
      return errorResult(errorText(error, rewrites));
    }
  };
}

/** What the server says in its tool descriptions: what the vaults it serves actually do now. */
export interface ServedFacts {
  /** "full-text (BM25)" or "full-text and semantic (hash)": the search the vaults run, from their config. */
  searchMode: string;
}

/** A usage error about the `vault` field rather than the tool's own input. */
const isVaultName = (error: VaultkeeperError): boolean => error.message.startsWith('no vault named');

const vaultNote = (vaults: ServedVaults): string => (vaults.names.length > 1 ? ` Vaults: ${vaults.names.join(', ')} (default ${vaults.defaultName}).` : '');

export function registerTools(server: McpServer, vaults: ServedVaults, log: Log, facts: ServedFacts): void {
  const input = vaults.names.length > 1 ? <T>(schema: T): T => schema : withoutVault;
  server.registerTool(
    'memory_search',
    {
      title: 'Search memory',
      description:
        `Search the person's long-term memory (daily-log facts, wiki page statements, MEMORY.md) by ${facts.searchMode} search; questions work as queries. One line a result, best first: score, where, text, citation. A page: path:line and its [[link]]. A fact: DATE:line (its log logs/DATE.md) and ^id (cite [[DATE#^id]]; memory_forget takes the id).${vaultNote(vaults)}`,
      inputSchema: input(SearchInput),
      outputSchema: SearchOutput,
      annotations: READ_ONLY,
    },
    guarded('memory_search', log, {}, (args: z.output<typeof SearchInput>) => search(vaults, log, args)),
  );

  server.registerTool(
    'memory_remember',
    {
      title: 'Remember facts',
      description:
        "Append durable facts (one per item, each standing on its own) to the daily log of their date and commit them. Append-only. Returns each fact's id and citation link.",
      inputSchema: input(RememberInput),
      outputSchema: RememberOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guarded(
      'memory_remember',
      log,
      { VK_USAGE: (error) => (isVaultName(error) ? errorText(error) : `${errorText(error)}; nothing was written: fix that fact and send the whole list again`) },
      async (args: z.output<typeof RememberInput>) => remember(await vaults.get(args.vault), args),
    ),
  );

  server.registerTool(
    'memory_forget',
    {
      title: 'Forget facts',
      description:
        'Forget facts for good (a committed tombstone: gone from search, pages and MEMORY.md): id forgets one fact, match every fact containing those words (search first). Cannot be undone here.',
      inputSchema: input(ForgetInput),
      outputSchema: ForgetOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(
      'memory_forget',
      log,
      {
        VK_NOT_FOUND: (error) =>
          `${error.message}; nothing was changed. Find the fact with memory_search (a fact's line ends with its ^id), or read its day's log with memory_read (path logs/YYYY-MM-DD.md; the id is the ^f-… at the end of the line)`,
        // The one usage error left after the schema: a match of only punctuation.
        VK_USAGE: (error) =>
          isVaultName(error) ? errorText(error) : 'match needs at least one word of letters or digits, e.g. {"match": "dark roast"}; nothing was changed',
      },
      async (args: z.output<typeof ForgetInput>) => forget(vaults, args),
    ),
  );

  server.registerTool(
    'memory_read',
    {
      title: 'Read a memory file',
      description:
        'Read a vault file: a page (a search result\'s path), a day\'s log (logs/YYYY-MM-DD.md or YYYY-MM-DD), MEMORY.md, index.md (map of pages), schema.md or log.md; from_line/max_lines read a range. Over 256 KB is cut.',
      inputSchema: input(ReadInput),
      outputSchema: ReadOutput,
      annotations: READ_ONLY,
    },
    guarded('memory_read', log, {}, async (args: z.output<typeof ReadInput>) => read(await vaults.get(args.vault), args)),
  );

  server.registerTool(
    'memory_consolidate',
    {
      title: 'Consolidate memory (dream)',
      description:
        "Run the dream: consolidate pending daily logs into wiki pages and commit. A dry run by default (returns the diff, changes nothing); dry_run: false rewrites pages and MEMORY.md (a person can revert with `vaultkeeper undo RUN`). Uses the vault's LLM, else the offline consolidator.",
      inputSchema: input(ConsolidateInput),
      outputSchema: ConsolidateOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    guarded(
      'memory_consolidate',
      log,
      { VK_LLM_CONFIG: (error) => `${error.message}; call memory_consolidate with offline: true to use the offline consolidator, or ask the person to finish the llm settings` },
      async (args: z.output<typeof ConsolidateInput>, extra) => consolidate(await vaults.get(args.vault), log, args, extra),
    ),
  );

  server.registerTool(
    'memory_status',
    {
      title: 'Memory status',
      description: "The vault's state: watermark (last consolidated day), pending facts, the last and next dream, the index, the daemon's jobs.",
      inputSchema: input(StatusInput),
      outputSchema: StatusOutput,
      annotations: READ_ONLY,
    },
    guarded('memory_status', log, {}, async (args: z.output<typeof StatusInput>) => {
      const status = await (await vaults.get(args.vault)).status();
      return answer(statusText(status), status);
    }),
  );

  server.registerTool(
    'memory_context',
    {
      title: 'Everything about a subject',
      description:
        'Everything about one person, project, place or topic within a character budget: its pages (lead, current values, open tasks), linked pages, recent facts and commitments, each with a citation link.',
      inputSchema: input(ContextInput),
      outputSchema: ContextOutput,
      annotations: READ_ONLY,
    },
    guarded('memory_context', log, {}, async (args: z.output<typeof ContextInput>) => {
      const context = await (await vaults.get(args.vault)).context(args.subject, args.budget === undefined ? {} : { budget: args.budget });
      return answer(contextText(context), context);
    }),
  );

  server.registerTool(
    'memory_recent',
    {
      title: 'Recent activity',
      description: 'What changed lately (default 7 days), to catch up at the start of a session: newest facts, changed pages, last dreams, each with a citation link.',
      inputSchema: input(RecentInput),
      outputSchema: RecentOutput,
      annotations: READ_ONLY,
    },
    guarded('memory_recent', log, {}, async (args: z.output<typeof RecentInput>) => {
      const recent = await (await vaults.get(args.vault)).recent({ ...(args.days === undefined ? {} : { days: args.days }), ...(args.limit === undefined ? {} : { limit: args.limit }) });
      return answer(recentText(recent), recent);
    }),
  );
}

async function search(vaults: ServedVaults, log: Log, args: z.output<typeof SearchInput>): Promise<CallToolResult> {
  const k = args.k ?? 10;
  const names = args.vault === ALL_VAULTS ? vaults.names : [args.vault ?? vaults.defaultName];
  const options = {
    k,
    kind: args.kind,
    category: args.category,
    tag: args.tag,
    since: args.since,
    until: args.until,
    archived: args.archived ?? false,
    maxChars: args.max_chars,
    minScore: args.min_score,
  };
  // Each vault searches its own index; across vaults the best k by score (ties: the order the vaults are served in).
  const perVault = await Promise.all(
    names.map(async (name) => withVault(name, await (await vaults.get(name)).search(args.query, { ...options, onNote: (message) => log(`memory_search (${name}): ${message}`) }))),
  );
  const results = names.length === 1 ? perVault[0]! : perVault.flat().sort((a, b) => b.score - a.score).slice(0, k);
  const value: SearchOutputValue =
    results.length === 0 ? { query: args.query, results, note: 'no results: try other words, fewer filters, or archived: true' } : { query: args.query, results };
  return { content: [{ type: 'text', text: searchText(value, names.length > 1) }], structuredContent: value };
}

async function remember(vault: Vault, args: z.output<typeof RememberInput>): Promise<CallToolResult> {
  const { facts, commit, warning, late, note, hidden, hiddenNote, redacted, redactedNote } = await vault.remember(args.facts, { source: args.source });
  const value = {
    facts: facts.map((f) => ({ id: f.id, date: f.date, path: f.path, line: f.line, link: `[[${f.date}#^${f.id}]]`, category: f.category, text: f.text, tags: f.tags })),
    commit,
    late,
    ...(warning === undefined ? {} : { warning }),
    ...(note === undefined ? {} : { note }),
    hidden,
    ...(hiddenNote === undefined ? {} : { hidden_note: hiddenNote }),
    redacted,
    ...(redactedNote === undefined ? {} : { redacted_note: redactedNote }),
  };
  return answer(rememberText(value), value);
}

async function forget(vaults: ServedVaults, args: z.output<typeof ForgetInput>): Promise<CallToolResult> {
  if (args.id !== undefined && args.match !== undefined) return errorResult('give id or match, not both: id forgets one fact, match every fact containing the words');
  const target = args.id !== undefined ? { id: args.id } : args.match !== undefined ? { match: args.match } : null;
  if (target === null) return errorResult('memory_forget needs id or match: {"id": "f-7k2m9q0a1b"} (ids come from memory_search) or {"match": "dark roast"}');
  const vault = await vaults.get(args.vault);
  const { tombstoned, already, pages, memory, commit } = await vault.forget(target, { reason: args.reason });
  const note =
    commit === null
      ? 'every matching fact was already forgotten; nothing changed'
      : tombstoned.length === 0
        ? 'every matching fact was already forgotten; lines that still held them were removed from the pages'
        : `forgot ${tombstoned.length} ${tombstoned.length === 1 ? 'fact' : 'facts'}; memory_search, memory_read and MEMORY.md no longer show them`;
  const value = { tombstoned, already, pages, memory, commit, note };
  return answer(forgetText(value), value);
}

async function read(vault: Vault, args: z.output<typeof ReadInput>): Promise<CallToolResult> {
  const resolved = await resolveReadable(vault.root, args.path);
  if (!resolved.ok) return errorResult(`cannot read ${args.path} (${resolved.reason}): ${resolved.hint}`);
  if (args.from_line !== undefined || args.max_lines !== undefined) {
    const range = await readLines(resolved.abs, args.from_line ?? 1, args.max_lines ?? Number.MAX_SAFE_INTEGER, READ_CAP_BYTES);
    if (range.total < range.from) return errorResult(`${resolved.rel} has ${range.total} lines; from_line must be at most ${range.total}`);
    const value = { path: resolved.rel, from_line: range.from, to_line: range.to, total_lines: range.total, truncated: false, text: range.text };
    if (range.to === range.total && range.from === 1) return answer(range.text, value);
    const next = range.to < range.total ? `; next: from_line ${range.to + 1}` : '';
    return answer(`${range.text}[lines ${range.from}-${range.to} of ${range.total}${next}]\n`, value);
  }
  const file = await readCapped(resolved.abs, READ_CAP_BYTES);
  const lineCount = file.text === '' ? 0 : file.text.split('\n').length - (file.text.endsWith('\n') ? 1 : 0);
  // A cut file's own length in lines is not known without reading it all: null.
  const value = { path: resolved.rel, from_line: 1, to_line: lineCount, total_lines: file.truncated ? null : lineCount, truncated: file.truncated, text: file.text };
  if (!file.truncated) return answer(file.text, value);
  const kb = (bytes: number): string => `${Math.round(bytes / 1024)} KB`;
  return answer(`${file.text}\n[cut: showing the first ${kb(Buffer.byteLength(file.text))} of ${kb(file.bytes)}; use memory_search to find the part you need, or read a range with from_line and max_lines]\n`, value);
}

/** What an agent can do after each outcome of a dream. */
const DREAM_NEXT: Record<string, string> = {
  'dry-run': 'nothing in the vault changed; call memory_consolidate with dry_run: false to apply it',
  gated: 'the gate held the run back; call again with force: true to run now',
  noop: 'nothing is pending: every past day is consolidated',
  skipped: "those days are skipped: their facts stay searchable as facts",
  failed: 'the vault was left as it was; tell the person (log.md and `vaultkeeper status` show the state); a batch that keeps failing is skipped',
};

async function consolidate(vault: Vault, log: Log, args: z.output<typeof ConsolidateInput>, extra: Extra): Promise<CallToolResult> {
  // A run with an LLM can take minutes: progress notifications (when the client asks for them) keep it waiting.
  const progressToken = extra._meta?.progressToken;
  let step = 0;
  const result = await vault.dream({
    dryRun: args.dry_run,
    force: args.force,
    offline: args.offline,
    onEvent: (event) => {
      if (event.type !== 'step') return;
      log(`memory_consolidate: ${event.message}`);
      if (progressToken !== undefined) {
        void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++step, message: event.message } }).catch(() => undefined);
      }
    },
  });
  const { diff, ...summary } = result;
  const next = result.status === 'ok' ? `committed ${result.commit?.slice(0, 8) ?? ''}; a person can revert it with: vaultkeeper undo ${result.run}` : DREAM_NEXT[result.status];
  if (result.status === 'failed') return errorResult(`the dream failed: ${result.reason}\n${JSON.stringify({ ...summary, next })}`);
  const text = consolidateText({ ...summary, next });
  if (diff === undefined) return answer(text, { ...summary, ...(next === undefined ? {} : { next }) });
  const shown = capText(diff === '' ? '(empty diff)\n' : diff, DIFF_CAP_CHARS, 'run `vaultkeeper dream --dry-run` to see the whole diff');
  // The diff is a text of its own, so an agent reads it as a diff rather than as an escaped JSON string.
  return answer(text, { ...summary, ...(next === undefined ? {} : { next }), diff: shown }, shown);
}
