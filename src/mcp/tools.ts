/**
 * The memory tools: each calls the Vault API and nothing else, and answers with JSON text or a tool error
 * that names the next call. memory_read is the one exception: it reads the file itself, behind its guard.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import type { Vault } from '../vault/vault.js';
import { readCapped, resolveReadable } from './read.js';
import { capText, errorResult, errorText, jsonResult, textResult, type Rewrites } from './results.js';
import { ConsolidateInput, ContextInput, ForgetInput, ReadInput, RecentInput, RememberInput, SearchInput, StatusInput } from './schemas.js';

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

export function registerTools(server: McpServer, vault: Vault, log: Log): void {
  server.registerTool(
    'memory_search',
    {
      title: 'Search memory',
      description:
        "Search the person's long-term memory: facts from the daily logs, sections of wiki pages and core memory (MEMORY.md), by hybrid full-text and semantic search. Questions work as queries; \"a phrase\" must appear, -word must not. Results come best first (score 0 to 1), each a fact or the matching statements of one page section (list items or paragraphs, in line order, without their inline citations), with kind, path, line and line_end (statements: each shown statement's lines and the fact ids it cites; section: the whole section's lines, for memory_read), a citation link to quote (e.g. [[2026-06-09#^f-7k2m9q0a1b]] or [[Coffee#Roast]]), text, score and date; a fact also carries its id (for memory_forget). Read a whole page with memory_read.",
      inputSchema: SearchInput,
      annotations: READ_ONLY,
    },
    guarded('memory_search', log, {}, (args: z.output<typeof SearchInput>) => search(vault, log, args)),
  );

  server.registerTool(
    'memory_remember',
    {
      title: 'Remember facts',
      description:
        "Append facts to the person's long-term memory: each goes to the daily log of its date (default today) and the batch is committed to git. Append-only: nothing already remembered changes. Write one durable fact per item, so it stands on its own later. Returns each fact's id, log path, line and citation link; facts dated on or before the last consolidated day are listed in `late` with a `note`: the next dream places them.",
      inputSchema: RememberInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guarded(
      'memory_remember',
      log,
      { VK_USAGE: (error) => `${errorText(error)}; nothing was written: fix that fact and send the whole list again` },
      (args: z.output<typeof RememberInput>) => remember(vault, args),
    ),
  );

  server.registerTool(
    'memory_forget',
    {
      title: 'Forget facts',
      description:
        'Forget facts for good: writes a tombstone (committed to git) so the fact never comes back, not in search, not from pages that cite it, not after a reindex; the next consolidation removes it from pages. Give id (from memory_search) to forget one fact, or match to forget every fact whose text contains those words (search first to see what would match). Returns what it matched. Cannot be undone with these tools.',
      inputSchema: ForgetInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(
      'memory_forget',
      log,
      {
        VK_NOT_FOUND: (error) =>
          `${error.message}; nothing was changed. Find the fact with memory_search (fact results carry "id"), or read its day's log with memory_read (path logs/YYYY-MM-DD.md; the id is the ^f-… at the end of the line)`,
        // The one usage error left after the schema: a match of only punctuation.
        VK_USAGE: () => 'match needs at least one word of letters or digits, e.g. {"match": "dark roast"}; nothing was changed',
      },
      (args: z.output<typeof ForgetInput>) => forget(vault, args),
    ),
  );

  server.registerTool(
    'memory_read',
    {
      title: 'Read a memory file',
      description:
        'Read a file of the memory vault: a wiki page (the path of a search result, e.g. 2_Areas/Coffee.md), a daily fact log (logs/YYYY-MM-DD.md), or MEMORY.md (core memory), index.md (the map of pages), schema.md (the page conventions), log.md (the consolidation journal). Paths are relative to the vault; only .md files; hidden folders are off limits. Files over 256 KB are cut, with a note.',
      inputSchema: ReadInput,
      annotations: READ_ONLY,
    },
    guarded('memory_read', log, {}, (args: z.output<typeof ReadInput>) => read(vault, args)),
  );

  server.registerTool(
    'memory_consolidate',
    {
      title: 'Consolidate memory (dream)',
      description:
        "Run the dream: consolidate the oldest pending daily logs into wiki pages (merge duplicates, apply corrections, cite every fact), check the result, then commit it as one git commit. By default a dry run, which changes nothing and returns the diff the run would commit. With dry_run: false it rewrites wiki pages and regenerates MEMORY.md, index.md and log.md (destructive; a person can revert the commit with `vaultkeeper undo RUN`). The gate (enough pending facts, enough time since the last run) applies unless force: true. Uses the vault's configured LLM, or the offline rule-based consolidator when none is configured or with offline: true.",
      inputSchema: ConsolidateInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    guarded(
      'memory_consolidate',
      log,
      { VK_LLM_CONFIG: (error) => `${error.message}; call memory_consolidate with offline: true to use the offline consolidator, or ask the person to finish the llm settings` },
      (args: z.output<typeof ConsolidateInput>, extra) => consolidate(vault, log, args, extra),
    ),
  );

  server.registerTool(
    'memory_status',
    {
      title: 'Memory status',
      description:
        "The vault's state: the consolidation watermark (the last day consolidated into pages), pending days and facts, skipped days, the last dream run and what the next check will decide (dream.will_run, the gate holding it and what opens it), the index (rows, embedder), the daemon and each of its jobs' last and next run (schedule).",
      inputSchema: StatusInput,
      annotations: READ_ONLY,
    },
    guarded('memory_status', log, {}, async () => jsonResult(await vault.status())),
  );

  server.registerTool(
    'memory_context',
    {
      title: 'Everything about a subject',
      description:
        "Everything the memory holds about one subject (a person, project, place or topic) in one call, within a character budget: its wiki pages (found by name or alias, else by search) with each page's lead paragraph, current values (subject:: value lines; history left out) and open tasks; the pages they link to and that link to them; the recent facts that mention it, newest first; and its commitments. Each item carries a citation link to quote. What did not fit the budget is counted in \"omitted\": raise budget, or read a page with memory_read.",
      inputSchema: ContextInput,
      annotations: READ_ONLY,
    },
    guarded('memory_context', log, {}, async (args: z.output<typeof ContextInput>) =>
      jsonResult(await vault.context(args.subject, args.budget === undefined ? {} : { budget: args.budget })),
    ),
  );

  server.registerTool(
    'memory_recent',
    {
      title: 'Recent activity',
      description:
        'What changed in the memory lately, for catching up at the start of a session: the newest facts (newest first), the wiki pages changed (by a person or by vaultkeeper, from git) and the last consolidation runs (dreams), over the last days (default 7). Each fact and page carries a citation link.',
      inputSchema: RecentInput,
      annotations: READ_ONLY,
    },
    guarded('memory_recent', log, {}, async (args: z.output<typeof RecentInput>) =>
      jsonResult(await vault.recent({ ...(args.days === undefined ? {} : { days: args.days }), ...(args.limit === undefined ? {} : { limit: args.limit }) })),
    ),
  );
}

async function search(vault: Vault, log: Log, args: z.output<typeof SearchInput>): Promise<CallToolResult> {
  const results = await vault.search(args.query, {
    k: args.k ?? 10,
    kind: args.kind,
    category: args.category,
    tag: args.tag,
    since: args.since,
    until: args.until,
    archived: args.archived ?? false,
    maxChars: args.max_chars,
    minScore: args.min_score,
    onNote: (message) => log(`memory_search: ${message}`),
  });
  if (results.length === 0) return jsonResult({ query: args.query, results, note: 'no results: try other words, fewer filters, or archived: true' });
  return jsonResult({ query: args.query, results });
}

async function remember(vault: Vault, args: z.output<typeof RememberInput>): Promise<CallToolResult> {
  const { facts, commit, warning, late, note, hidden, hiddenNote, redacted, redactedNote } = await vault.remember(args.facts, { source: args.source });
  return jsonResult({
    facts: facts.map((f) => ({ id: f.id, date: f.date, path: f.path, line: f.line, link: `[[${f.date}#^${f.id}]]`, category: f.category, text: f.text, tags: f.tags })),
    commit,
    late,
    ...(warning === undefined ? {} : { warning }),
    ...(note === undefined ? {} : { note }),
    hidden,
    ...(hiddenNote === undefined ? {} : { hidden_note: hiddenNote }),
    redacted,
    ...(redactedNote === undefined ? {} : { redacted_note: redactedNote }),
  });
}

async function forget(vault: Vault, args: z.output<typeof ForgetInput>): Promise<CallToolResult> {
  if (args.id !== undefined && args.match !== undefined) return errorResult('give id or match, not both: id forgets one fact, match every fact containing the words');
  const target = args.id !== undefined ? { id: args.id } : args.match !== undefined ? { match: args.match } : null;
  if (target === null) return errorResult('memory_forget needs id or match: {"id": "f-7k2m9q0a1b"} (ids come from memory_search) or {"match": "dark roast"}');
  const { tombstoned, already, pages, memory, commit } = await vault.forget(target, { reason: args.reason });
  const note =
    commit === null
      ? 'every matching fact was already forgotten; nothing changed'
      : tombstoned.length === 0
        ? 'every matching fact was already forgotten; lines that still held them were removed from the pages'
        : `forgot ${tombstoned.length} ${tombstoned.length === 1 ? 'fact' : 'facts'}; memory_search, memory_read and MEMORY.md no longer show them`;
  return jsonResult({ tombstoned, already, pages, memory, commit, note });
}

async function read(vault: Vault, args: z.output<typeof ReadInput>): Promise<CallToolResult> {
  const resolved = await resolveReadable(vault.root, args.path);
  if (!resolved.ok) return errorResult(`cannot read ${args.path} (${resolved.reason}): ${resolved.hint}`);
  const file = await readCapped(resolved.abs, READ_CAP_BYTES);
  if (!file.truncated) return textResult(file.text);
  const kb = (bytes: number): string => `${Math.round(bytes / 1024)} KB`;
  return textResult(`${file.text}\n[cut: showing the first ${kb(Buffer.byteLength(file.text))} of ${kb(file.bytes)}; use memory_search to find the part you need]\n`);
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
  if (diff === undefined) return jsonResult({ ...summary, next });
  // The diff is a text of its own, so an agent reads it as a diff rather than as an escaped JSON string.
  return jsonResult({ ...summary, next }, capText(diff === '' ? '(empty diff)\n' : diff, DIFF_CAP_CHARS, 'run `vaultkeeper dream --dry-run` to see the whole diff'));
}
