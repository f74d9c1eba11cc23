#!/usr/bin/env node
/**
 * The vaultkeeper command line: a thin frontend over the library. Each command's module is imported
 * only when it runs, so quick commands never load LanceDB, transformers.js or openai.
 */
import { readFileSync } from 'node:fs';
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { failpointArmed } from '../core/failpoint.js';
import { packageFile } from '../core/package-files.js';
import { redactor } from '../core/redact.js';
import { allowBatchTiering } from '../core/tiering.js';
import { addExamples, examplesText } from './examples.js';
import { prepareStdio, writeErr, writeOut } from './stdio.js';
import type { GlobalOptions } from './options.js';

const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string };

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** What `server` and `worker` read from the environment (kept here: the help must not load the server's modules). */
const SERVER_ENV_HELP = [
  '  DATABASE_URL                 the PostgreSQL URL, postgres://HOST:5432/DB (required): tenants, vaults, tokens, usage, jobs',
  '  VAULTKEEPER_SERVER_DATA      the working copies (default ~/.local/share/vaultkeeper/server)',
  '  VAULTKEEPER_REMOTES          a folder of bare git repositories, or a git URL base (default DATA/remotes)',
  '  VAULTKEEPER_INDEX_URI_BASE   e.g. s3://bucket/prefix, with AWS_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION',
  '  VAULTKEEPER_TENANT_TOKENS_PER_DAY, VAULTKEEPER_TENANT_COST_PER_DAY   default daily LLM caps of a tenant',
  '  VAULTKEEPER_LLM_CALLS_PER_MINUTE   LLM calls a minute, shared by every worker',
  '  VAULTKEEPER_JOB_EXPIRE_S, VAULTKEEPER_JOB_RETRY_DELAY_S, VAULTKEEPER_JOB_RETRY_LIMIT   a lost job is retried after (900 s), first retry delay (30 s, then backing off), retries (3)',
  '  VAULTKEEPER_DREAM_EVERY_S, VAULTKEEPER_DIGEST_EVERY_S   every vault dreams / writes its digests this often (default: only when asked)',
  '  VAULTKEEPER_JOB_LEASE_TIMEOUT_S   a worker silent this long (hung, stopped) loses the lease of its job to another worker (120 s)',
].join('\n');

/**
 * The program with the definitions of every command, or only of `only` (see `commandNamed`): commander parses each
 * definition it is given, ~4 ms of a search's start for all of them (docs/benchmarks.md).
 */
function build(only: string | null = null): Command {
  const want = (name: string): boolean => only === null || only === name;
  const program = new Command('vaultkeeper')
    .description('Long-term memory for AI agents, kept as a plain markdown vault you can open in Obsidian.')
    .version(pkg.version, '-V, --version')
    .option('--vault <path>', 'the vault (else $VAULTKEEPER_VAULT, else the nearest enclosing vault)')
    .option('--debug', 'show stack traces on errors')
    .showSuggestionAfterError()
    .exitOverride()
    // One line per usage error (DESIGN §10): commander puts its "(Did you mean …?)" on a second line.
    .configureOutput({ outputError: (text, write) => write(`${text.replace(/^error: /, 'vaultkeeper: ').trimEnd().replace(/\s*\n\s*/g, ' ')}\n`) });

  const globals = (command: Command): GlobalOptions => command.optsWithGlobals<GlobalOptions>();

  if (want('init')) program
    .command('init')
    .description('create a new vault (zones, schema.md, config, git repository), or adopt an existing folder or Obsidian vault')
    .argument('[path]', 'folder for the new vault', '.')
    .option('--adopt', 'make an existing folder or Obsidian vault a vault: add what it lacks, change no note')
    .option('--obsidian-settings', 'with --adopt: also add vaultkeeper\'s .obsidian/ settings files the vault lacks')
    .option('--json', 'print the result as JSON')
    .action(async (target: string, opts: { json?: boolean; adopt?: boolean; obsidianSettings?: boolean }) => (await import('./commands/init.js')).run(target, opts));

  if (want('remember')) program
    .command('remember')
    .description('append a fact to today\'s log (or many with --stdin) and commit it')
    .argument('[text...]', 'the fact')
    .addOption(new Option('-c, --category <category>', 'fact category').default(undefined))
    .option('-t, --tag <tag>', 'a tag (repeatable)', collect)
    .option('--source <source>', 'where the fact came from (shown in the batch header)')
    .option('--date <date>', 'log date YYYY-MM-DD (default: today in the vault\'s time zone)')
    .option('--stdin', 'read facts from standard input: plain lines, or JSON lines {text, category, tags, date}')
    .option('--json', 'print the result as JSON')
    .action(async (words: string[], opts, command: Command) => (await import('./commands/remember.js')).run(words, opts, globals(command)));

  if (want('forget')) program
    .command('forget')
    .description('tombstone a fact by id, or every fact matching a text; it never comes back')
    .argument('[id]', 'the fact id, e.g. f-7k2m9q0a1b')
    .option('--match <text>', 'forget every fact whose text contains these words')
    .option('--reason <reason>', 'why (kept in the tombstone and the commit)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string | undefined, opts, command: Command) => (await import('./commands/forget.js')).run(id, opts, globals(command)));

  if (want('history')) program
    .command('history')
    .description('list the changes made to the vault (its git history)')
    .argument('[path]', 'only changes to this file or folder')
    .option('-n, --limit <n>', 'at most this many entries', parsePositiveInt)
    .option('--json', 'print the result as JSON')
    .action(async (target: string | undefined, opts, command: Command) => (await import('./commands/history.js')).run(target, opts, globals(command)));

  if (want('doctor')) program
    .command('doctor')
    .description('check the vault: malformed log lines, config, uncommitted edits, links; exit 1 on problems')
    .option('--fix', 'append the derived ^id to fact lines written without one (one commit), then check')
    .option('--json', 'print the result as JSON')
    .action(async (opts, command: Command) => (await import('./commands/doctor.js')).run(opts, globals(command)));

  if (want('reindex')) program
    .command('reindex')
    .description('bring the search index up to date with the vault (only what changed), or rebuild it')
    .option('--clear', 'drop the index and rebuild it from the files (the embedding cache is kept)')
    .option('--json', 'print the result as JSON')
    // The MCP server's idle fold, run in a child process so its memory is returned when it ends (vault/idle-fold.ts).
    .addOption(new Option('--fold-in', 'fold rows written outside the full-text index into it').hideHelp())
    .action(async (opts, command: Command) => (await import('./commands/reindex.js')).run(opts, globals(command)));

  if (want('search')) program
    .command('search')
    .description('hybrid full-text and vector search over facts, pages and core memory, with citations')
    .argument('<query...>', 'what to look for')
    .option('-k, --k <n>', 'number of results (default 10)', parsePositiveInt)
    .addOption(new Option('--kind <kind>', 'only this kind of result').choices(['fact', 'page', 'core']))
    .option('--category <category>', 'only facts of this category')
    .option('--tag <tag>', 'only results with this tag')
    .option('--since <date>', 'only results dated on or after YYYY-MM-DD')
    .option('--until <date>', 'only results dated on or before YYYY-MM-DD')
    .option('--archived', 'include archived pages')
    .option('--max-chars <n>', 'a budget on the characters of all results together', parsePositiveInt)
    .option('--min-score <score>', 'leave out results scoring below this (0 to 1)', parseScore)
    .option('--no-refresh', 'search the index as it is, without first looking for changed files (faster in a large vault; misses changes since the last index pass)')
    .option('--json', 'print the result as JSON')
    .action(async (words: string[], opts, command: Command) => (await import('./commands/search.js')).run(words, opts, globals(command)));

  if (want('ingest')) program
    .command('ingest')
    .description('extract facts from agent transcripts: Claude Code, Codex, Gemini CLI, OpenClaw, Cursor, Aider, Continue, OpenAI messages (the format is read from the content)')
    .argument('<files...>', 'transcript files (a folder stands for the transcripts in it)')
    .option('--offline', 'use the offline rules even when an LLM is configured')
    .option('--json', 'print the result as JSON')
    .action(async (files: string[], opts, command: Command) => (await import('./commands/ingest.js')).run(files, opts, globals(command)));

  if (want('import')) program
    .command('import')
    .description('import another memory\'s export: ChatGPT or Claude.ai (conversations.json), mem0 (JSON), a Basic Memory folder, or a vaultkeeper export')
    .argument('<path>', 'the export file or folder (its format is told by its content)')
    .option('--offline', 'read conversations with the offline rules even when an LLM is configured')
    .option('--json', 'print the result as JSON')
    .action(async (given: string, opts, command: Command) => (await import('./commands/import.js')).run(given, opts, globals(command)));

  if (want('export')) program
    .command('export')
    .description('write every live fact (tombstones applied) with its id, date, category, tags, source and page citations')
    .addOption(new Option('--format <format>', 'jsonl (one JSON object a line) or csv').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--out <file>', 'write to this file instead of standard output')
    .action(async (opts, command: Command) => (await import('./commands/export.js')).run(opts, globals(command)));

  if (want('watch')) program
    .command('watch')
    .description('keep the index current while files change (foreground; Ctrl-C stops)')
    .option('--debounce <ms>', 'wait this long after the last change (default 300)', parsePositiveInt)
    .action(async (opts, command: Command) => (await import('./commands/watch.js')).run(opts, globals(command)));

  if (want('dream')) program
    .command('dream')
    .description('consolidate the oldest pending log days into wiki pages: checked, then one git commit')
    .option('--force', 'skip the gate (never the lock)')
    .option('--dry-run', 'run in a scratch worktree and print the diff; the vault does not change')
    .option('--offline', 'use the offline consolidator even when an LLM is configured')
    .option('--retry-skipped', 'retry the days an earlier dream gave up on (oldest first, one batch); no gate')
    .option('--json', 'print the result as JSON')
    .action(async (opts, command: Command) => (await import('./commands/dream.js')).run(opts, globals(command)));

  if (want('undo')) program
    .command('undo')
    .description('revert a dream run\'s commit; its days become pending again')
    .argument('<run>', 'the run id, e.g. r-20260610-031207')
    .option('--json', 'print the result as JSON')
    .action(async (runId: string, opts, command: Command) => (await import('./commands/undo.js')).run(runId, opts, globals(command)));

  if (want('conflicts')) program
    .command('conflicts')
    .description('list what the dream flagged for review (0_Inbox/conflicts.md)')
    .option('--all', 'include resolved ones')
    .option('--json', 'print the result as JSON')
    .action(async (opts, command: Command) => (await import('./commands/conflicts.js')).run(opts, globals(command)));

  if (want('status')) program
    .command('status')
    .description('watermark, pending days, when the dream runs and what holds it, the daemon and its jobs')
    .option('--dashboard', `regenerate the dashboard page (${'4_Resources/Dashboard.md'}) first`)
    .option('--json', 'print the result as JSON')
    .action(async (opts, command: Command) => (await import('./commands/status.js')).run(opts, globals(command)));

  if (want('mcp')) program
    .command('mcp')
    .description('serve the vault to AI agents as MCP memory tools over stdio, or over HTTP with --http (see docs/integrations.md)')
    .option('--http', 'serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio')
    .option('--port <port>', 'the HTTP port (default 8765; 0 picks a free one)', parsePort)
    .option('--host <host>', 'the address to listen on (default 127.0.0.1, loopback only)')
    .option('--allow-origin <origin...>', 'browser origins allowed besides the server\'s own, e.g. http://localhost:5173')
    .option('--token-env <name>', 'the environment variable holding the bearer token (default: one generated once, kept in ~/.config/vaultkeeper/mcp-token)')
    .option('--max-sessions <n>', 'most open HTTP sessions (default 100)', parsePositiveInt)
    .option('--idle-timeout <seconds>', 'close an HTTP session idle this long (default 1800)', parsePositiveInt)
    .action(async (opts, command: Command) => (await import('./commands/mcp.js')).run(globals(command), opts));

  if (want('vaults')) {
    const vaults = program.command('vaults').description('name the vaults one MCP server serves (kept in ~/.config/vaultkeeper/vaults.json, outside every vault)');
    vaults
      .command('add')
      .description('name a vault, e.g. vaultkeeper vaults add work ~/notes/work')
      .argument('<name>', 'a short name: lower-case letters, digits, - and _')
      .argument('[path]', 'the vault folder (default: this folder)')
      .option('--json', 'print the result as JSON')
      .action(async (name: string, folder: string | undefined, opts) => (await import('./commands/vaults.js')).add(name, folder, opts));
    vaults
      .command('list')
      .description('the named vaults')
      .option('--json', 'print the result as JSON')
      .action(async (opts) => (await import('./commands/vaults.js')).list(opts));
    vaults
      .command('remove')
      .description('forget a name (the vault itself is unchanged)')
      .argument('<name>', 'the name')
      .option('--json', 'print the result as JSON')
      .action(async (name: string, opts) => (await import('./commands/vaults.js')).remove(name, opts));
  }

  if (want('completion')) program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: 'bash' | 'zsh' | 'fish') => {
      const { completionScript } = await import('./completion.js');
      writeOut(completionScript(shell, program));
    });

  if (want('serve')) program
    .command('serve')
    .description('answer search and status from a warm process kept current by a watcher (foreground; Ctrl-C stops); the daemon without its jobs')
    .action(async (_opts, command: Command) => (await import('./commands/serve.js')).run(globals(command)));

  if (want('daemon')) {
    const daemon = program.command('daemon').description('the background process: indexing, dreams, extraction, digests, health');
    daemon
      .command('start')
      .description('run the daemon (foreground; --background detaches)')
      .option('--background', 'detach, write .vaultkeeper/daemon.pid, print the pid and the log path')
      .option('--json', 'print the result as JSON (with --background)')
      .option('--all', 'one process for every vault registered with `vaultkeeper vaults add`, each with its own lock, git, index and schedule')
      .option('--vaults <names...>', 'one process for these registered vaults')
      .action(async (opts, command: Command) => (await import('./commands/daemon.js')).start(opts, globals(command)));
    daemon
      .command('stop')
      .description('stop the daemon: SIGTERM, then SIGKILL after 10 s')
      .option('--json', 'print the result as JSON')
      .option('--all', 'the daemons of every registered vault')
      .option('--vaults <names...>', 'the daemons of these registered vaults')
      .action(async (opts, command: Command) => (await import('./commands/daemon.js')).stop(opts, globals(command)));
    daemon
      .command('status')
      .description('the same as `vaultkeeper status`; with --all or --vaults, each vault\'s under its name')
      .option('--json', 'print the result as JSON')
      .option('--all', 'every registered vault')
      .option('--vaults <names...>', 'these registered vaults')
      .action(async (opts, command: Command) => (await import('./commands/daemon.js')).status(opts, globals(command)));
    daemon
      .command('log')
      .description("pretty-print the daemon's log (.vaultkeeper/daemon.log)")
      .option('--tail <n>', 'the last N entries (default 50)', parsePositiveInt)
      .option('--job <job>', 'only this job (index, dream, extract, digest, health, llm)')
      .option('--follow', 'keep printing new entries')
      .option('--json', 'print entries as JSON lines')
      .action(async (opts, command: Command) => (await import('./commands/daemon.js')).log(opts, globals(command)));
  }

  if (want('sync')) program
    .command('sync')
    .description("pull and push the vault's git remote: the same memory on several machines (logs merge line by line, only one machine dreams)")
    .option('--remote <url>', 'set the remote first (a bare git repository or any git URL)')
    .option('--json', 'print the result as JSON')
    .action(async (opts, command: Command) => (await import('./commands/sync.js')).run(opts, globals(command)));

  if (want('clone')) program
    .command('clone')
    .description("join a synced vault from another machine: clone its remote and build the index")
    .argument('<remote>', 'the remote the other machine syncs with')
    .argument('<path>', 'the folder for the vault')
    .option('--json', 'print the result as JSON')
    .action(async (remote: string, target: string, opts) => (await import('./commands/sync.js')).clone(remote, target, opts));

  if (want('merge-file')) program
    .command('merge-file', { hidden: true })
    .description("git's merge driver for logs, tombstones and log.md (set up by sync)")
    .argument('<kind>', 'log or lines')
    .argument('<base>')
    .argument('<ours>')
    .argument('<theirs>')
    .action(async (kind: string, base: string, ours: string, theirs: string) => (await import('./commands/sync.js')).mergeFile(kind, base, ours, theirs));

  if (want('demo')) program
    .command('demo')
    .description('build a small demo vault from sample facts and show what vaultkeeper does (offline)')
    .argument('[path]', 'folder for the demo vault (default: a new temporary folder)')
    .action(async (target: string | undefined) => (await import('./commands/demo.js')).run(target));

  if (want('capture')) {
    const capture = program
      .command('capture')
      .description('which agents\' transcripts the daemon\'s session watcher reads: nothing unless named here');
    capture
      .command('add')
      .description('capture an agent\'s sessions (claude-code, codex, gemini, openclaw, cursor, aider, continue), of one project with --project')
      .argument('<agent>', 'the agent')
      .option('--project <path>', 'only the sessions of this project folder')
      .option('--json', 'print the result as JSON')
      .action(async (agent: string, opts, command: Command) => (await import('./commands/capture.js')).add(agent, opts, globals(command)));
    capture
      .command('list')
      .description('list what is captured')
      .option('--json', 'print the result as JSON')
      .action(async (opts, command: Command) => (await import('./commands/capture.js')).list(opts, globals(command)));
    capture
      .command('remove')
      .description('stop capturing an agent (or one project of it); facts already extracted stay')
      .argument('<agent>', 'the agent')
      .option('--project <path>', 'only this project')
      .option('--json', 'print the result as JSON')
      .action(async (agent: string, opts, command: Command) => (await import('./commands/capture.js')).remove(agent, opts, globals(command)));
  }

  if (want('hooks')) {
    const hooks = program
      .command('hooks')
      .description('install vaultkeeper into an agent\'s own hooks: memory at session start, the session ingested at its end (see docs/integrations.md)');
    hooks
      .command('install')
      .description('write the hooks into the agent\'s settings (claude-code, codex, gemini) and capture its sessions; idempotent')
      .argument('<agent>', 'claude-code, codex or gemini')
      .option('--project <path>', 'into this project\'s settings, capturing only its sessions')
      .option('--json', 'print the result as JSON')
      .action(async (agent: string, opts, command: Command) => (await import('./commands/hooks.js')).install(agent, opts, globals(command)));
    hooks
      .command('uninstall')
      .description('take vaultkeeper\'s hooks out of the agent\'s settings; the rest of the file stays as it was')
      .argument('<agent>', 'claude-code, codex or gemini')
      .option('--project <path>', 'from this project\'s settings')
      .option('--json', 'print the result as JSON')
      .action(async (agent: string, opts, command: Command) => (await import('./commands/hooks.js')).uninstall(agent, opts, globals(command)));
  }

  if (want('hook')) {
    const hook = program.command('hook').description('what an agent\'s hooks run (installed by `vaultkeeper hooks install`); reads the hook\'s JSON on stdin');
    hook
      .command('session-start')
      .description('print MEMORY.md and the current project\'s context within a token budget, as the hook JSON agents read')
      .option('--budget <tokens>', 'at most this many tokens, estimated at 4 characters each (default 1500)', parsePositiveInt)
      .option('--text', 'print the plain text instead of the hook JSON')
      .action(async (opts, command: Command) => (await import('./commands/hook.js')).sessionStart(opts, globals(command)));
    hook
      .command('ingest')
      .description('extract the new lines of the session named by the hook\'s transcript_path now (only a captured one); prints nothing')
      .option('--offline', 'use the offline rules even when an LLM is configured')
      .option('--json', 'print the outcome as JSON')
      .action(async (opts, command: Command) => (await import('./commands/hook.js')).ingest(opts, globals(command)));
  }

  if (want('purge')) program
    .command('purge')
    .description('erase a fact by id, or every fact matching a text: from its log (the id stays), pages, MEMORY.md, tombstones, the index and the git history')
    .argument('[id]', 'the fact id, e.g. f-7k2m9q0a1b')
    .option('--match <text>', 'purge every fact whose text contains these words')
    .option('--reason <reason>', 'why (kept in log.md and the commit; never the text)')
    .option('-y, --yes', 'do not ask for confirmation (for scripts)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string | undefined, opts, command: Command) => (await import('./commands/purge.js')).run(id, opts, globals(command)));

  if (want('server')) {
    const server = program
      .command('server')
      .description('the hosted API: many vaults behind bearer tokens, REST and MCP per vault, jobs on PostgreSQL (docs/hosting.md)')
      .option('--port <port>', 'the HTTP port (default 8787; 0 picks a free one)', parsePort)
      .option('--host <host>', 'the address to listen on (default 127.0.0.1)')
      .option('--no-workers', 'run the API alone; run the jobs with `vaultkeeper worker`')
      .option('--concurrency <n>', 'jobs of each kind this process runs at once (default 2)', parsePositiveInt)
      .addHelpText('after', () => `${examplesText('server')}\nSettings, from the environment:\n${SERVER_ENV_HELP}\n`)
      .action(async (opts) => (await import('./commands/server.js')).serve(opts));
    const vault = server.command('vault').description("the server's vaults: each a working copy and a git remote (its canonical copy)");
    vault
      .command('create')
      .description('create a vault for a tenant (the tenant too, when new), its working copy and its remote')
      .argument('<name>', 'the vault: lower-case letters, digits, - and _')
      .requiredOption('--tenant <tenant>', 'the tenant it belongs to')
      .option('--json', 'print the result as JSON')
      .action(async (name: string, opts) => (await import('./commands/server.js')).vaultCreate(name, opts));
    vault
      .command('list')
      .description('the vaults, of every tenant or of one')
      .option('--tenant <tenant>', 'only this tenant\'s')
      .option('--json', 'print the result as JSON')
      .action(async (opts) => (await import('./commands/server.js')).vaultList(opts));
    const token = server.command('token').description('bearer tokens: bound to a tenant (and maybe one vault) with scopes read, write, admin; stored hashed');
    token
      .command('create')
      .description('create a token and print it once, as the last line')
      .requiredOption('--tenant <tenant>', 'the tenant it opens')
      .option('--vault <name>', 'only this vault of the tenant (default: every vault of the tenant)')
      .option('--scope <scopes>', 'comma-separated: read, write, admin', 'read')
      .option('--json', 'print the result as JSON')
      // --vault is also the program's global option (a vault's path), which commander gives the value to.
      .action(async (opts, command: Command) => (await import('./commands/server.js')).tokenCreate({ ...opts, vault: opts.vault ?? globals(command).vault }));
    token
      .command('revoke')
      .description('revoke a token, by its id (vk_<id>_…) or the token itself')
      .argument('<id>', 'the token id, or the token')
      .option('--json', 'print the result as JSON')
      .action(async (id: string, opts) => (await import('./commands/server.js')).tokenRevoke(id, opts));
    server
      .command('tenant')
      .description("a tenant's LLM usage today and its daily caps; set them with --tokens-per-day and --cost-per-day")
      .argument('<tenant>', 'the tenant')
      .option('--tokens-per-day <n>', 'the daily token cap, or none')
      .option('--cost-per-day <n>', 'the daily cost cap (in the currency of llm.prices), or none')
      .option('--json', 'print the result as JSON')
      .action(async (tenant: string, opts) => (await import('./commands/server.js')).tenantCaps(tenant, opts));
  }

  if (want('worker')) program
    .command('worker')
    .description("run the server's jobs (dream, reindex, extract, digest, sync) from its PostgreSQL queue; as many processes as you like")
    .option('--concurrency <n>', 'jobs of each kind this process runs at once (default 2)', parsePositiveInt)
    .addHelpText('after', () => `${examplesText('worker')}\nSettings, from the environment:\n${SERVER_ENV_HELP}\n`)
    .action(async (opts) => (await import('./commands/server.js')).work(opts));

  addExamples(program);
  return program;
}

export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number from 0 to 65535.');
  return n;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive whole number.');
  return n;
}

export function parseScore(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a number from 0 to 1, e.g. 0.3.');
  return n;
}

/**
 * The command an invocation names (its first word past the global options), when only that command's definition
 * need be built; null when all are needed: no command (`--help`, `--version`), `help`, or `completion` (its script
 * lists every command).
 */
function commandNamed(argv: readonly string[]): string | null {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--vault') i++;
    else if (arg === '--') return null;
    else if (!arg.startsWith('-')) return arg === 'help' || arg === 'completion' ? null : arg;
  }
  return null;
}

async function main(argv: string[]): Promise<void> {
  // Every line the CLI prints passes one redaction, and a closed pipe ends it quietly (stdio.ts).
  prepareStdio(redactor());
  const debug = argv.includes('--debug');
  // The CLI is a bundle (docs/ARCHITECTURE.md): with --debug, stack traces name the sources, through the source maps
  // of the chunks loaded from here on (each command's).
  if (debug) process.setSourceMapsEnabled(true);
  // This process is the CLI's own: a long rebuild may have V8 optimize its code later (core/tiering.ts).
  allowBatchTiering();
  const named = commandNamed(argv);
  let program = build(named);
  // Not a command's name (a typo): all of them, so commander can suggest the nearest.
  if (named !== null && program.commands.length === 0) program = build();
  // A command that waits on what nothing settles, as a bug would leave it (test/e2e/cli-unfinished.test.ts).
  if (failpointArmed('cli:unsettled')) await new Promise(() => undefined);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = await report(error, debug);
  }
}

async function report(error: unknown, debug: boolean): Promise<number> {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return 2; // commander has printed its one-line message

  }
  const { VaultkeeperError, explainError } = await import('../core/errors.js');
  // A disk, permission or git failure no step typed still says its cause and fix in one line.
  const explained = explainError(error);
  if (explained !== undefined && explained !== error) error = explained;
  if (error instanceof VaultkeeperError) {
    // One line, whatever a library put in the message (LanceDB's carry source paths on a second line).
    writeErr(`vaultkeeper: ${error.message.split('\n')[0]}${error.hint ? `; ${error.hint}` : ''}\n`);
    if (debug && error.stack) writeErr(`${error.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  writeErr(`vaultkeeper: unexpected error: ${message.split('\n')[0]} (run with --debug for details)\n`);
  if (debug && error instanceof Error && error.stack) writeErr(`${error.stack}\n`);
  return 1;
}

/**
 * A command whose work awaits something nothing will settle (a bug) would end when the event loop drains:
 * exit 0 and no output, as if it had succeeded. 'beforeExit' comes only then, never after process.exit or a
 * crash, so a command still unfinished at that point fails, in one line.
 */
let finished = false;
process.once('beforeExit', () => {
  if (finished) return;
  writeErr('vaultkeeper: internal error: the command stopped before it finished (nothing was left to wait for); run it again, and report it if it repeats\n');
  process.exitCode = 70;
});
// Not a top-level await: the CLI bundle is CommonJS (scripts/bundle-cli.mjs).
void main(process.argv).then(() => {
  finished = true;
});
