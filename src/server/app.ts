/**
 * The hosted API (hono): GET /health, and under /v1/vaults/{vault}/ the REST endpoints and MCP. Every request but
 * /health carries a bearer token bound to a tenant (and maybe one vault) and scopes; a vault is looked up within
 * the token's tenant only, so another tenant's vault is "not found" (404), and a vault the token is not bound to is
 * refused (403). Each endpoint calls the Vault API, as the CLI and MCP do. Writes queue a sync job that pushes the
 * commit to the vault's remote; dreams and reindexes are queued (jobs.ts) and answered with the job's id.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { VaultkeeperError, errorMessage } from '../core/errors.js';
import { readCapped, resolveReadable } from '../mcp/read.js';
import { ContextInput, ForgetInput, RecentInput, RememberInput, withoutVault } from '../mcp/schemas.js';
import { READ_CAP_BYTES } from '../mcp/tools.js';
import type { Vault } from '../vault/vault.js';
import type { OpenVaults } from './copies.js';
import type { Db } from './db.js';
import type { JobKind, Queue } from './jobs.js';
import { calledTools, handleMcp, WRITE_TOOLS } from './mcp.js';
import { authenticate, findVault, type Principal, type VaultRow } from './registry.js';
import { scrubTokens } from './scrub.js';
import { bearer, grants, type Scope } from './tokens.js';

export type Log = (line: string) => void;

export interface AppDeps {
  db: Db;
  queue: Queue;
  vaults: OpenVaults;
  log: Log;
}

type Env = { Variables: { principal: Principal; row: VaultRow } };

/** A write is pushed to the remote this long after it, so a burst of writes makes one push. */
const SYNC_DELAY_S = 2;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const DreamBody = z.strictObject({ force: z.boolean().optional() }, { error: 'the body is {"force": true} or {}' });

class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_OF: Record<string, 400 | 404 | 409> = { VK_USAGE: 400, VK_NOT_FOUND: 404, VK_LOCKED: 409 };

export function createApp(deps: AppDeps): Hono<Env> {
  const { db, queue, vaults, log } = deps;
  const app = new Hono<Env>();

  app.onError((error, c) => {
    if (error instanceof HttpError) return c.json({ error: error.message }, error.status);
    if (error instanceof VaultkeeperError) {
      const status = STATUS_OF[error.code] ?? 500;
      return c.json({ error: error.message.split('\n')[0], code: error.code, ...(error.hint === undefined ? {} : { hint: error.hint }) }, status);
    }
    log(`${c.req.method} ${c.req.path} failed: ${errorMessage(error).split('\n')[0]}`);
    return c.json({ error: 'internal error' }, 500);
  });
  app.notFound((c) => c.json({ error: `not found: ${c.req.method} ${c.req.path}; the API is under /v1/vaults/{vault}/ (docs/hosting.md)` }, 404));

  // A liveness probe: no token, nothing about any vault.
  app.get('/health', async (c) => {
    await db.query('SELECT 1');
    return c.json({ ok: true });
  });

  app.use('/v1/vaults/:vault/*', async (c, next) => {
    const token = bearer(c.req.header('authorization'));
    const principal = token === null ? null : await authenticate(db, token);
    if (principal === null) {
      c.header('www-authenticate', 'Bearer');
      throw new HttpError(401, 'missing, unknown or revoked bearer token: send "Authorization: Bearer <token>" (vaultkeeper server token create)');
    }
    const name = c.req.param('vault')!;
    if (principal.vault !== null && principal.vault !== name) throw new HttpError(403, `this token opens vault '${principal.vault}' only`);
    const row = await findVault(db, principal.tenant, name);
    if (row === null) throw new HttpError(404, `no vault named '${name}'`);
    c.set('principal', principal);
    c.set('row', row);
    const started = Date.now();
    await next();
    // Never the token, never the query string (a search's words are the person's).
    log(`${c.req.method} ${c.req.path} ${c.res.status} token ${principal.tokenId} ${Date.now() - started} ms`);
  });

  const need = (c: Context<Env>, scope: Scope): void => {
    if (!grants(c.get('principal').scopes, scope)) throw new HttpError(403, `this token lacks the ${scope} scope`);
  };
  const vaultOf = (c: Context<Env>): Promise<Vault> => vaults.get({ tenant: c.get('row').tenant, name: c.get('row').name });
  const body = async (c: Context<Env>): Promise<unknown> => {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new HttpError(413, `the request body is over ${MAX_BODY_BYTES} bytes`);
    if (text.trim() === '') return {};
    try {
      return scrubTokens(JSON.parse(text) as unknown);
    } catch {
      throw new HttpError(400, 'the request body is not JSON');
    }
  };
  const parse = <T extends z.ZodType>(schema: T, value: unknown): z.output<T> => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new HttpError(400, parsed.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; '));
    return parsed.data;
  };
  const enqueue = async (c: Context<Env>, kind: JobKind, data: { force?: boolean } = {}, startAfter?: number) =>
    queue.send(kind, { vault: c.get('row').id, ...data }, startAfter === undefined ? {} : { startAfter });
  const queued = async (c: Context<Env>, kind: JobKind, data: { force?: boolean } = {}) => {
    const job = await enqueue(c, kind, data);
    return c.json({ job: job.id, kind, queued: job.queued, ...(job.queued ? {} : { note: `a ${kind} of this vault is already waiting: that job will run it` }) }, 202);
  };
  const integer = (c: Context<Env>, name: string): number | undefined => {
    const raw = c.req.query(name);
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n)) throw new HttpError(400, `${name} must be a whole number`);
    return n;
  };

  const v = new Hono<Env>();
  v.post('/remember', async (c) => {
    need(c, 'write');
    const args = parse(withoutVault(RememberInput), await body(c));
    const vault = await vaultOf(c);
    const { facts, commit, warning, late, note, hidden, redacted } = await vault.remember(args.facts, { source: args.source === 'mcp' ? 'server' : args.source });
    await enqueue(c, 'sync', {}, SYNC_DELAY_S);
    return c.json({
      facts: facts.map((f) => ({ id: f.id, date: f.date, path: f.path, line: f.line, link: `[[${f.date}#^${f.id}]]`, category: f.category, text: f.text, tags: f.tags })),
      commit,
      late,
      hidden,
      redacted,
      ...(warning === undefined ? {} : { warning }),
      ...(note === undefined ? {} : { note }),
    });
  });
  v.get('/search', async (c) => {
    need(c, 'read');
    const query = c.req.query('q') ?? '';
    if (query.trim() === '') throw new HttpError(400, 'q is required, e.g. /search?q=coffee&k=5');
    const k = integer(c, 'k') ?? 10;
    if (k < 1 || k > 50) throw new HttpError(400, 'k must be from 1 to 50');
    const results = await (await vaultOf(c)).search(query, { k });
    return c.json({ query, results });
  });
  v.post('/forget', async (c) => {
    need(c, 'write');
    const args = parse(withoutVault(ForgetInput), await body(c));
    if ((args.id === undefined) === (args.match === undefined)) throw new HttpError(400, 'give id or match, not both: {"id": "f-7k2m9q0a1b"} or {"match": "dark roast"}');
    const result = await (await vaultOf(c)).forget(args.id !== undefined ? { id: args.id } : { match: args.match! }, { reason: args.reason });
    if (result.commit !== null) await enqueue(c, 'sync', {}, SYNC_DELAY_S);
    return c.json(result);
  });
  v.get('/read', async (c) => {
    need(c, 'read');
    const rel = c.req.query('path') ?? '';
    if (rel.trim() === '') throw new HttpError(400, 'path is required, e.g. /read?path=MEMORY.md');
    const resolved = await resolveReadable((await vaultOf(c)).root, rel);
    if (!resolved.ok) throw new HttpError(resolved.reason === 'not_found' ? 404 : 400, `cannot read ${rel} (${resolved.reason}): ${resolved.hint}`);
    const file = await readCapped(resolved.abs, READ_CAP_BYTES);
    return c.json({ path: resolved.rel, text: file.text, bytes: file.bytes, truncated: file.truncated });
  });
  v.get('/context', async (c) => {
    need(c, 'read');
    const args = parse(withoutVault(ContextInput), { subject: c.req.query('subject') ?? '', ...(c.req.query('budget') === undefined ? {} : { budget: integer(c, 'budget') }) });
    return c.json(await (await vaultOf(c)).context(args.subject, args.budget === undefined ? {} : { budget: args.budget }));
  });
  v.get('/recent', async (c) => {
    need(c, 'read');
    const args = parse(withoutVault(RecentInput), { days: integer(c, 'days'), limit: integer(c, 'limit') });
    return c.json(await (await vaultOf(c)).recent({ ...(args.days === undefined ? {} : { days: args.days }), ...(args.limit === undefined ? {} : { limit: args.limit }) }));
  });
  v.get('/status', async (c) => {
    need(c, 'read');
    return c.json(await (await vaultOf(c)).status());
  });
  v.post('/dream', async (c) => {
    need(c, 'write');
    const args = parse(DreamBody, await body(c));
    return queued(c, 'dream', args.force === undefined ? {} : { force: args.force });
  });
  v.post('/reindex', async (c) => {
    need(c, 'write');
    await body(c);
    return queued(c, 'reindex');
  });
  v.get('/jobs/:id', async (c) => {
    need(c, 'read');
    const { rows } = await db.query<{ name: string; state: string; retry_count: number; data: { vault?: string }; output: unknown; started_on: Date | null; completed_on: Date | null }>(
      'SELECT name, state, retry_count, data, output, started_on, completed_on FROM pgboss.job WHERE id::text = $1 UNION ALL SELECT name, state, retry_count, data, output, started_on, completed_on FROM pgboss.archive WHERE id::text = $1 LIMIT 1',
      [c.req.param('id')],
    ).catch(() => ({ rows: [] }));
    const job = rows[0];
    // Another vault's job is not found, like another tenant's vault.
    if (job === undefined || job.data.vault !== c.get('row').id) throw new HttpError(404, `no job ${c.req.param('id')} of this vault`);
    return c.json({ id: c.req.param('id'), kind: job.name.replace(/^vk-/, ''), state: job.state, retries: job.retry_count, output: job.output, started_on: job.started_on, completed_on: job.completed_on });
  });
  v.all('/mcp', async (c) => {
    need(c, 'read');
    const parsed = c.req.method === 'POST' ? await body(c) : undefined;
    if (calledTools(parsed).some((tool) => WRITE_TOOLS.has(tool))) need(c, 'write');
    const row = c.get('row');
    return handleMcp(c.req.raw, parsed, row.name, await vaultOf(c), (line) => log(`mcp ${row.tenant}/${row.name}: ${line}`));
  });
  app.route('/v1/vaults/:vault', v);
  return app;
}
