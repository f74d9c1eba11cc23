import { execFile } from 'node:child_process';
import { writeSync } from 'node:fs';
import { format } from 'node:util';
import { VaultkeeperError, errorMessage } from '../../core/errors.js';
import { listVaults } from '../../core/vault-registry.js';
import type { ServedVaults } from '../../mcp/vaults.js';
import { locateVault } from '../../vault/locate.js';
import { openVault, type Vault } from '../../vault/vault.js';
import type { GlobalOptions } from '../options.js';
import { note } from '../output.js';

export interface McpOptions {
  http?: boolean;
  port?: number;
  host?: string;
  allowOrigin?: string[];
  tokenEnv?: string;
  maxSessions?: number;
  idleTimeout?: number;
}

/**
 * Serves the vault over MCP: on stdio (stdout carries the protocol alone: everything else goes to
 * stderr), or with --http over Streamable HTTP until SIGINT/SIGTERM. Besides the vault it was started on it serves
 * every vault named in the registry (`vaultkeeper vaults add`), each opened on first use.
 */
export async function run(globals: GlobalOptions, opts: McpOptions = {}): Promise<void> {
  // A dependency that logs with console.log would corrupt the protocol stream.
  const toStderr = (...args: unknown[]): void => note(format(...args));
  Object.assign(globalThis.console, { log: toStderr, info: toStderr, debug: toStderr });
  const log = (line: string): void => note(`vaultkeeper mcp: ${line}`);
  if (!opts.http && (opts.port !== undefined || opts.host !== undefined || opts.allowOrigin !== undefined || opts.tokenEnv !== undefined || opts.maxSessions !== undefined || opts.idleTimeout !== undefined)) {
    throw new VaultkeeperError('VK_USAGE', '--port, --host, --allow-origin, --token-env, --max-sessions and --idle-timeout go with --http', { exitCode: 2, hint: 'e.g. vaultkeeper mcp --http --port 8765' });
  }
  const registered = await listVaults();
  // The vault named or found here comes first; with none here, the registry's vaults alone (an explicit --vault that is not a vault still fails).
  let started: string | null;
  try {
    started = locateVault({ vault: globals.vault });
  } catch (error) {
    if (globals.vault !== undefined || process.env.VAULTKEEPER_VAULT || registered.length === 0) throw error;
    started = null;
  }
  const { IdleFold } = await import('../../vault/idle-fold.js');
  const folds: Array<InstanceType<typeof IdleFold>> = [];
  // A search's update leaves its few rows outside the full-text index; this process lives long: fold them in once
  // quiet, and those written before it started too (vault/idle-fold.ts), in each vault it opens.
  const open = async (root: string): Promise<Vault> => {
    const vault = await openVault({ vault: root });
    // The files changed between its searches' passes, so a pass after a `remember` stats those, not the vault's.
    await vault.trackChanges();
    const fold = new IdleFold(() => vault, (error) => log(`folding new rows into the full-text index of ${root} failed: ${errorMessage(error)}`), undefined, foldInChild);
    vault.onReindexed = () => fold.poke();
    fold.poke();
    folds.push(fold);
    return vault;
  };
  const { ServedVaults, servedEntries, searchMode } = await import('../../mcp/vaults.js');
  const vaults = new ServedVaults(servedEntries(started, registered), open);
  try {
    await serve(vaults, log, opts, await searchMode(vaults));
  } finally {
    await Promise.all(folds.map((fold) => fold.close()));
  }
}

/**
 * The idle fold in a child process of this same CLI: LanceDB's compaction at a million facts grew a process by
 * ~500-650 MB that the allocator never returned, and this process lives for hours (docs/benchmarks.md).
 */
function foldInChild(vault: Vault): Promise<void> {
  const cli = process.argv[1];
  if (cli === undefined) return vault.reindex({ foldIn: true, lockWaitMs: 0 }).then(() => undefined);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, '--vault', vault.root, 'reindex', '--fold-in'], { maxBuffer: 1024 * 1024 }, (error, _stdout, stderr) => {
      // The table the child compacted is read afresh: the old handle's caches held the old full-text index too.
      if (error === null) resolve(vault.close());
      else reject(new Error(String(stderr).trim().split('\n')[0] || error.message));
    });
  });
}

function servedLine(vaults: ServedVaults): string {
  return vaults.entries.length === 1 ? vaults.entries[0]!.path : vaults.entries.map((e) => `${e.name} (${e.path})`).join(', ');
}

async function serve(vaults: ServedVaults, log: (line: string) => void, opts: McpOptions, searchMode: string): Promise<void> {
  if (!opts.http) {
    const { createServer, serveStdio } = await import('../../mcp/server.js');
    log(`serving ${servedLine(vaults)} over stdio`);
    await serveStdio(createServer(vaults, log, { searchMode }), log);
    return;
  }
  const { isLoopback, serveHttp, DEFAULT_HTTP_PORT } = await import('../../mcp/http.js');
  const { resolveToken } = await import('../../mcp/token.js');
  const host = opts.host ?? '127.0.0.1';
  // A generated token sits in a file any process of this user can read: enough for this machine, not for a network.
  if (!isLoopback(host) && opts.tokenEnv === undefined) {
    throw new VaultkeeperError('VK_USAGE', `listening on ${host}, beyond this machine, needs a token of your own`, { exitCode: 2, hint: 'export VK_MCP_TOKEN=$(openssl rand -base64 32) and add --token-env VK_MCP_TOKEN' });
  }
  const token = await resolveToken(opts.tokenEnv);
  const serving = await serveHttp(vaults, log, { searchMode }, {
    host,
    token: token.token,
    ...(opts.port === undefined ? {} : { port: opts.port }),
    ...(opts.allowOrigin === undefined ? {} : { allowedOrigins: opts.allowOrigin }),
    ...(opts.maxSessions === undefined ? {} : { maxSessions: opts.maxSessions }),
    ...(opts.idleTimeout === undefined ? {} : { idleMs: opts.idleTimeout * 1000 }),
  }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new VaultkeeperError('VK_USAGE', `port ${opts.port ?? DEFAULT_HTTP_PORT} is in use`, { hint: 'choose another with --port N (0 picks a free one)' });
    throw error;
  });
  log(`serving ${servedLine(vaults)} over Streamable HTTP at ${serving.url}`);
  // The token itself is never printed (DESIGN §9): the client config reads it from where it is kept.
  const variable = 'env' in token.from ? token.from.env : 'VK_MCP_TOKEN';
  if ('file' in token.from) {
    log(`${token.from.created ? 'generated a bearer token' : 'the bearer token is'} in ${token.from.file} (outside every vault); every request but GET /health must carry it`);
    log(`client config: export ${variable}="$(cat ${token.from.file})"`);
  } else {
    log(`every request but GET /health must carry the bearer token in $${variable}`);
  }
  // Written past the CLI's output redaction, which blanks whatever follows "Authorization:": this line holds the
  // variable's name, never its value.
  writeSync(2, `vaultkeeper mcp: client config: {"mcpServers": {"vaultkeeper": {"type": "http", "url": "${serving.url}", "headers": {"Authorization": "Bearer \${${variable}}"}}}}\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      log(`stopping: ${signal}`);
      void serving.close().then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
