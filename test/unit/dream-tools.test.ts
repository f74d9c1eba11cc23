import { createHash } from 'node:crypto';
import { lstat, readFile, readdir, readlink, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolbox, TOOL_DEFINITIONS, type ToolContext, type ToolResult } from '../../src/dream/tools/tools.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';

const tempDir = useTempDir();
const BATCH = ['2026-06-09', '2026-06-10'];

const COFFEE = '---\ntitle: Coffee\ntags: [coffee]\n---\n# Coffee\n\n- Prefers dark roast [[2026-06-09#^f-7k2m9q0a1b]]\n- Grinds daily\n- Grinds daily\n';
const LOG_09 = [
  '# 2026-06-09',
  '',
  '## 14:32 · claude-code/3f9a1c',
  '- [preference] Prefers dark roast coffee #coffee ^f-7k2m9q0a1b',
  '- [fact] home city:: Lisbon #location ^f-a81x0c2d3e',
  '- [fact] Secret plan to forget ^f-forgotten0',
  'a free line a person wrote',
  '',
].join('\n');

interface Fixture {
  dir: string;
  root: string;
  searches: Array<[string, number]>;
  context: ToolContext;
}

/** A vault beside an `outside` folder, with real links out of it, into logs/ and nowhere. */
async function makeVault(limits: ToolContext['limits'] = {}): Promise<Fixture> {
  const dir = await tempDir();
  const root = path.join(dir, 'vault');
  await writeTree(dir, {
    'outside/secret.md': 'secret\n',
    'outside/dir/page.md': 'outside page\n',
    'vault/logs/2026-06-09.md': LOG_09,
    'vault/logs/2026-06-10.md': '# 2026-06-10\n\n## 09:00 · cli\n- [fact] Likes tea ^f-tea0000000\n',
    'vault/logs/2026-06-01.md': '# 2026-06-01\n\n## 09:00 · cli\n- [fact] Old news ^f-old0000000\n',
    'vault/2_Areas/coffee.md': COFFEE,
    'vault/1_Projects/alpha.md': '# Alpha\n\nA project.\n',
    'vault/1_Projects/beta.md': '# Beta\n',
    'vault/5_Archives/1_Projects/beta.md': '# Beta (old)\n',
    'vault/schema.md': 'schema\n',
    'vault/index.md': 'index\n',
    'vault/log.md': 'journal\n',
    'vault/MEMORY.md': 'memory\n',
    'vault/.git/config': '[core]\n',
    'vault/.vaultkeeper/config.yaml': 'timezone: UTC\n',
    'vault/.vaultkeeper/tombstones.jsonl': `${JSON.stringify({ id: 'f-forgotten0', text: 'secret plan to forget', at: '2026-06-11T00:00:00Z' })}\n`,
    'vault/.obsidian/app.json': '{}\n',
  });
  await symlink('../../outside/secret.md', path.join(root, '2_Areas/escape.md'));
  await symlink('../logs/2026-06-09.md', path.join(root, '2_Areas/into-logs.md'));
  await symlink('../outside/dir', path.join(root, 'outdir'));
  await symlink('logs', path.join(root, 'logsdir'));
  await symlink('nope.md', path.join(root, '2_Areas/dangling.md'));
  const searches: Array<[string, number]> = [];
  const context: ToolContext = {
    root,
    batchDates: BATCH,
    search: async (query, k) => {
      searches.push([query, k]);
      if (query === 'explode') throw new Error('the index is busy');
      return [{ kind: 'page', path: '2_Areas/coffee.md', line: 5, text: 'Prefers dark roast', score: 1 }];
    },
    limits,
  };
  return { dir, root, searches, context };
}

/** A hash of every file, folder and link under dir (links are not followed). */
async function treeHash(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const entries = await readdir(dir, { recursive: true });
  for (const rel of entries.sort()) {
    const abs = path.join(dir, rel);
    const info = await lstat(abs);
    if (info.isSymbolicLink()) hash.update(`l ${rel} ${await readlink(abs)}\n`);
    else if (info.isDirectory()) hash.update(`d ${rel}\n`);
    else hash.update(`f ${rel} ${info.mode} ${createHash('sha256').update(await readFile(abs)).digest('hex')}\n`);
  }
  return hash.digest('hex');
}

/** Calls a tool that must be refused, and asserts that nothing in or beside the vault changed. */
async function expectRefused(fx: Fixture, toolbox: ReturnType<typeof createToolbox>, name: string, args: unknown, pattern?: RegExp): Promise<string> {
  const before = await treeHash(fx.dir);
  const raw = typeof args === 'string' ? args : JSON.stringify(args);
  const result = await toolbox.call(name, raw);
  expect(result.ok, `${name} ${raw.slice(0, 200)} → ${JSON.stringify(result).slice(0, 300)}`).toBe(false);
  const error = result.ok ? '' : result.error;
  if (pattern !== undefined) expect(error).toMatch(pattern);
  expect(error).not.toContain(fx.dir);
  expect(await treeHash(fx.dir), `${name} ${raw.slice(0, 200)} changed the tree`).toBe(before);
  expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  return error;
}

async function expectOk(toolbox: ReturnType<typeof createToolbox>, name: string, args: unknown): Promise<Record<string, unknown>> {
  const result: ToolResult = await toolbox.call(name, JSON.stringify(args));
  expect(result, `${name} ${JSON.stringify(args)}`).toMatchObject({ ok: true });
  expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  return (result as { result: Record<string, unknown> }).result;
}

describe('tool definitions', () => {
  it('are the whitelist, in the OpenAI format, with a description on every field', () => {
    expect(TOOL_DEFINITIONS.map((d) => d.function.name)).toEqual([
      'list_pages',
      'read_page',
      'read_log',
      'search_memory',
      'write_page',
      'edit_page',
      'archive_page',
      'flag_conflict',
      'finish',
    ]);
    for (const definition of TOOL_DEFINITIONS) {
      expect(definition.type).toBe('function');
      expect(definition.function.description.length).toBeGreaterThan(10);
      const parameters = definition.function.parameters as { type: string; properties: Record<string, { description?: string }>; $schema?: string };
      expect(parameters.type).toBe('object');
      expect(parameters.$schema).toBeUndefined();
      for (const [field, schema] of Object.entries(parameters.properties)) {
        expect(schema.description, `${definition.function.name}.${field}`).toBeTruthy();
      }
    }
    const search = TOOL_DEFINITIONS.find((d) => d.function.name === 'search_memory')!;
    expect(search.function.parameters).toMatchObject({ required: ['query'] });
  });
});

describe('reading tools', () => {
  it('list_pages lists wiki pages only, and no link that leads out', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const all = await expectOk(toolbox, 'list_pages', {});
    expect(all.pages).toEqual(['1_Projects/alpha.md', '1_Projects/beta.md', '2_Areas/coffee.md', '5_Archives/1_Projects/beta.md']);
    expect(await expectOk(toolbox, 'list_pages', { folder: '1_Projects' })).toMatchObject({ pages: ['1_Projects/alpha.md', '1_Projects/beta.md'] });
    await expectRefused(fx, toolbox, 'list_pages', { folder: 'logs' }, /forbidden/);
    await expectRefused(fx, toolbox, 'list_pages', { folder: '../outside' }, /outside_vault/);
    await expectRefused(fx, toolbox, 'list_pages', { folder: 'outdir' }, /outside_vault/);
    const capped = createToolbox({ ...fx.context, limits: { maxListEntries: 2 } });
    expect(await expectOk(capped, 'list_pages', {})).toMatchObject({ pages: ['1_Projects/alpha.md', '1_Projects/beta.md'], truncated: true });
  });

  it('read_page reads pages and refuses everything else', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    expect(await expectOk(toolbox, 'read_page', { path: '2_Areas/coffee.md' })).toEqual({ path: '2_Areas/coffee.md', content: COFFEE, bytes: COFFEE.length });
    await expectRefused(fx, toolbox, 'read_page', { path: '../outside/secret.md' }, /outside_vault.*relative to the vault/);
    await expectRefused(fx, toolbox, 'read_page', { path: path.join(fx.dir, 'outside/secret.md') }, /outside_vault/);
    await expectRefused(fx, toolbox, 'read_page', { path: '2_Areas/escape.md' }, /outside_vault/);
    await expectRefused(fx, toolbox, 'read_page', { path: 'outdir/page.md' }, /outside_vault/);
    await expectRefused(fx, toolbox, 'read_page', { path: '2_Areas/into-logs.md' }, /forbidden/);
    await expectRefused(fx, toolbox, 'read_page', { path: '2_Areas/dangling.md' }, /broken_link/);
    await expectRefused(fx, toolbox, 'read_page', { path: '.vaultkeeper/config.yaml' }, /forbidden/);
    await expectRefused(fx, toolbox, 'read_page', { path: '.git/config' }, /forbidden/);
    await expectRefused(fx, toolbox, 'read_page', { path: 'logs/2026-06-09.md' }, /read_log/);
    await expectRefused(fx, toolbox, 'read_page', { path: '2_Areas/missing.md' }, /not_found.*list_pages/);
  });

  it('read_page shows the start of a page larger than a page may be', async () => {
    const fx = await makeVault({ maxPageBytes: 16 });
    const toolbox = createToolbox(fx.context);
    const result = await expectOk(toolbox, 'read_page', { path: '2_Areas/coffee.md' });
    expect(result).toMatchObject({ content: COFFEE.slice(0, 16), truncated: true });
    expect(result.note).toMatch(/edit_page/);
  });

  it('read_log gives the batch facts with citations, leaves forgotten facts out, and reads only batch dates', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const log = await expectOk(toolbox, 'read_log', { date: '2026-06-09' });
    expect(log.facts).toEqual([
      expect.objectContaining({ id: 'f-7k2m9q0a1b', cite: '[[2026-06-09#^f-7k2m9q0a1b]]', category: 'preference', tags: ['coffee'], source: 'claude-code/3f9a1c' }),
      expect.objectContaining({ id: 'f-a81x0c2d3e', text: 'home city:: Lisbon' }),
    ]);
    expect(log.forgotten).toBe(1);
    expect(JSON.stringify(log)).not.toContain('Secret plan');
    expect(log.other_lines).toEqual([{ line: 7, text: 'a free line a person wrote' }]);
    await expectRefused(fx, toolbox, 'read_log', { date: '2026-06-01' }, /not_in_batch.*2026-06-09, 2026-06-10.*search_memory/);
    await expectRefused(fx, toolbox, 'read_log', { date: '../2026-06-01' }, /YYYY-MM-DD/);
    await expectRefused(fx, toolbox, 'read_log', { date: 20260609 }, /invalid arguments.*date/);
  });

  it('search_memory calls the search it was given', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const result = await expectOk(toolbox, 'search_memory', { query: 'coffee' });
    expect(result.results).toEqual([expect.objectContaining({ path: '2_Areas/coffee.md' })]);
    await expectOk(toolbox, 'search_memory', { query: 'tea', k: 3 });
    expect(fx.searches).toEqual([
      ['coffee', 8],
      ['tea', 3],
    ]);
    await expectRefused(fx, toolbox, 'search_memory', { query: 'explode' }, /search_memory failed: the index is busy/);
    await expectRefused(fx, toolbox, 'search_memory', { query: 'x', k: 500 }, /k/);
    await expectRefused(fx, toolbox, 'search_memory', { query: '' }, /query/);
  });
});

describe('write_page', () => {
  it('creates pages in new folders atomically and records them', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const content = '---\ntitle: Tea\n---\n# Tea\n\n- Likes tea [[2026-06-10#^f-tea0000000]]\n';
    expect(await expectOk(toolbox, 'write_page', { path: '4_Resources/Drinks and more/tea.md', content })).toEqual({
      path: '4_Resources/Drinks and more/tea.md',
      created: true,
      bytes: Buffer.byteLength(content),
    });
    expect(await readFile(path.join(fx.root, '4_Resources/Drinks and more/tea.md'), 'utf8')).toBe(content);
    await expectOk(toolbox, 'write_page', { path: '%2e%2e/odd name.md', content: '# Odd\n' });
    expect(await readFile(path.join(fx.root, '%2e%2e/odd name.md'), 'utf8')).toBe('# Odd\n');
    expect([...toolbox.touched].sort()).toEqual(['%2e%2e/odd name.md', '4_Resources/Drinks and more/tea.md']);
    expect(toolbox.bytesWritten).toBe(Buffer.byteLength(content) + 6);
    // No temp file is left beside the page.
    expect(await readdir(path.join(fx.root, '4_Resources/Drinks and more'))).toEqual(['tea.md']);
  });

  it('replaces a page, and writing the same content again changes nothing', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const content = `${COFFEE}- Likes it black\n`;
    expect(await expectOk(toolbox, 'write_page', { path: '2_Areas/coffee.md', content })).toMatchObject({ created: false });
    expect(await readFile(path.join(fx.root, '2_Areas/coffee.md'), 'utf8')).toBe(content);
    const bytes = toolbox.bytesWritten;
    expect(await expectOk(toolbox, 'write_page', { path: '2_Areas/coffee.md', content })).toMatchObject({ unchanged: true });
    expect(toolbox.bytesWritten).toBe(bytes);
  });

  it('refuses every path that is not a wiki page inside the vault, leaving the tree unchanged', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const content = '# Pwned\n';
    const cases: Array<[string, RegExp]> = [
      ['../outside/new.md', /outside_vault/],
      ['../outside/secret.md', /outside_vault/],
      ['2_Areas/../../escape.md', /outside_vault/],
      [path.join(fx.root, '2_Areas/abs.md'), /outside_vault/],
      ['/tmp/abs.md', /outside_vault/],
      ['C:\\Users\\x.md', /outside_vault/],
      ['2_Areas\\x.md', /invalid_path/],
      ['2_Areas/escape.md', /outside_vault/],
      ['outdir/page.md', /outside_vault/],
      ['outdir/new.md', /outside_vault/],
      ['2_Areas/into-logs.md', /forbidden/],
      ['logsdir/2026-06-12.md', /forbidden/],
      ['2_Areas/dangling.md', /broken_link/],
      ['logs/2026-06-09.md', /forbidden.*read_log/],
      ['logs/2026-06-12.md', /forbidden/],
      ['.git/config', /forbidden/],
      ['.git/hooks/post-commit.md', /forbidden/],
      ['.vaultkeeper/tombstones.md', /forbidden/],
      ['.obsidian/app.md', /forbidden/],
      ['2_Areas/.hidden.md', /forbidden/],
      ['schema.md', /forbidden/],
      ['index.md', /forbidden/],
      ['log.md', /forbidden/],
      ['MEMORY.md', /forbidden/],
      ['2_Areas/coffee.txt', /not_markdown.*\.md/],
      ['2_Areas/x\u0000.md', /NUL/],
      ['', /invalid_path/],
      ['2_Areas/coffee.md/x.md', /invalid_path/],
    ];
    for (const [rel, pattern] of cases) await expectRefused(fx, toolbox, 'write_page', { path: rel, content }, pattern);
    expect(toolbox.touched.size).toBe(0);
    expect(toolbox.bytesWritten).toBe(0);
  });

  it('refuses a 50 MB write before parsing it, and a page over the cap', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const huge = `# Big\n${'x'.repeat(50 * 1024 * 1024)}`;
    await expectRefused(fx, toolbox, 'write_page', { path: '2_Areas/big.md', content: huge }, /arguments of write_page are \d+ characters.*split it/);
    await expectRefused(fx, toolbox, 'write_page', { path: '2_Areas/big.md', content: `# Big\n${'y'.repeat(256 * 1024)}` }, /at most 262144 bytes/);
    await expectOk(toolbox, 'write_page', { path: '2_Areas/fits.md', content: `# Fits\n${'z'.repeat(256 * 1024 - 7)}` });
  });

  it('stops writing once the run has written its budget', async () => {
    const fx = await makeVault({ maxRunBytes: 100 });
    const toolbox = createToolbox(fx.context);
    await expectOk(toolbox, 'write_page', { path: '2_Areas/a.md', content: `# A\n${'a'.repeat(80)}\n` });
    await expectRefused(fx, toolbox, 'write_page', { path: '2_Areas/b.md', content: `# B\n${'b'.repeat(80)}\n` }, /has written 85.*call finish/);
    expect(toolbox.bytesWritten).toBe(85);
  });

  it('never empties a page, and refuses NUL bytes, broken text and frontmatter that does not parse', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const target = '2_Areas/coffee.md';
    for (const content of ['', '   \n\n', '---\ntitle: Coffee\n---\n', '---\ntitle: Coffee\n---\n\n  \n']) {
      await expectRefused(fx, toolbox, 'write_page', { path: target, content }, /archive_page/);
      await expectRefused(fx, toolbox, 'write_page', { path: '2_Areas/new.md', content }, /archive_page/);
    }
    await expectRefused(fx, toolbox, 'write_page', { path: target, content: '# Coffee\0\n' }, /NUL/);
    await expectRefused(fx, toolbox, 'write_page', { path: target, content: '# Coffee \ud800\n' }, /UTF-8/);
    const badFrontmatter = [
      '---\ntitle: [unclosed\n---\n# Coffee\n',
      '---\ntitle: Coffee\n# never closed\n',
      '---\n- a\n- list\n---\n# Coffee\n',
      '---\ntitle: a\n  bad: indent\n---\n# Coffee\n',
    ];
    for (const content of badFrontmatter) await expectRefused(fx, toolbox, 'write_page', { path: target, content }, /frontmatter/);
    expect(toolbox.touched.size).toBe(0);
  });

  it('writes through a link to a page inside the vault onto that page', async () => {
    const fx = await makeVault();
    await symlink('coffee.md', path.join(fx.root, '2_Areas/alias.md'));
    const toolbox = createToolbox(fx.context);
    expect(await expectOk(toolbox, 'write_page', { path: '2_Areas/alias.md', content: '# Coffee v2\n' })).toMatchObject({ path: '2_Areas/coffee.md' });
    expect((await lstat(path.join(fx.root, '2_Areas/alias.md'))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(fx.root, '2_Areas/coffee.md'), 'utf8')).toBe('# Coffee v2\n');
  });
});

describe('edit_page', () => {
  it('replaces one exact, unique passage literally', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    await expectOk(toolbox, 'edit_page', { path: '2_Areas/coffee.md', old_text: '# Coffee\n', new_text: '# Coffee ($& and $1)\n' });
    expect(await readFile(path.join(fx.root, '2_Areas/coffee.md'), 'utf8')).toBe(COFFEE.replace('# Coffee\n', () => '# Coffee ($& and $1)\n'));
    expect([...toolbox.touched]).toEqual(['2_Areas/coffee.md']);
  });

  it('refuses 0 or 2 matches, emptying, missing pages and forbidden paths', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    await expectRefused(fx, toolbox, 'edit_page', { path: '2_Areas/coffee.md', old_text: 'Prefers light roast', new_text: 'x' }, /not found.*read_page/);
    await expectRefused(fx, toolbox, 'edit_page', { path: '2_Areas/coffee.md', old_text: '- Grinds daily\n', new_text: '' }, /occurs 2 times.*surrounding/);
    await expectRefused(fx, toolbox, 'edit_page', { path: '2_Areas/coffee.md', old_text: '', new_text: 'x' }, /old_text/);
    await expectRefused(fx, toolbox, 'edit_page', { path: '1_Projects/alpha.md', old_text: '# Alpha\n\nA project.\n', new_text: '' }, /archive_page/);
    await expectRefused(fx, toolbox, 'edit_page', { path: '2_Areas/coffee.md', old_text: 'title: Coffee', new_text: 'title: [x' }, /frontmatter/);
    await expectRefused(fx, toolbox, 'edit_page', { path: '2_Areas/missing.md', old_text: 'a', new_text: 'b' }, /not_found/);
    await expectRefused(fx, toolbox, 'edit_page', { path: 'logs/2026-06-09.md', old_text: 'Lisbon', new_text: 'Porto' }, /forbidden/);
    await expectRefused(fx, toolbox, 'edit_page', { path: 'MEMORY.md', old_text: 'memory', new_text: 'x' }, /forbidden/);
    await expectRefused(fx, toolbox, 'edit_page', { path: '2_Areas/escape.md', old_text: 'secret', new_text: 'x' }, /outside_vault/);
    await writeTree(fx.root, { '2_Areas/latin1.md': Buffer.from('# Caf\xe9\n', 'latin1') });
    await expectRefused(fx, toolbox, 'edit_page', { path: '2_Areas/latin1.md', old_text: '# Caf', new_text: '# Tea' }, /not valid UTF-8/);
  });
});

describe('archive_page', () => {
  it('moves a page under 5_Archives/ keeping its sub-path, never deleting it', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const before = await readFile(path.join(fx.root, '1_Projects/alpha.md'));
    expect(await expectOk(toolbox, 'archive_page', { path: '1_Projects/alpha.md' })).toEqual({ from: '1_Projects/alpha.md', to: '5_Archives/1_Projects/alpha.md' });
    expect(await readFile(path.join(fx.root, '5_Archives/1_Projects/alpha.md'))).toEqual(before);
    await expect(lstat(path.join(fx.root, '1_Projects/alpha.md'))).rejects.toThrow();
    expect(toolbox.archived).toEqual([{ from: '1_Projects/alpha.md', to: '5_Archives/1_Projects/alpha.md' }]);
  });

  it('tracks a page written and then archived under its new path', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    await expectOk(toolbox, 'write_page', { path: '0_Inbox/note.md', content: '# Note\n' });
    await expectOk(toolbox, 'archive_page', { path: '0_Inbox/note.md' });
    expect([...toolbox.touched]).toEqual(['5_Archives/0_Inbox/note.md']);
  });

  it('never overwrites an archived page: a page whose archive name is taken goes to the next free name', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    const archived = await readFile(path.join(fx.root, '5_Archives/1_Projects/beta.md'));
    const live = await readFile(path.join(fx.root, '1_Projects/beta.md'));
    expect(await expectOk(toolbox, 'archive_page', { path: '1_Projects/beta.md' })).toEqual({ from: '1_Projects/beta.md', to: '5_Archives/1_Projects/beta (2).md' });
    expect(await readFile(path.join(fx.root, '5_Archives/1_Projects/beta.md'))).toEqual(archived);
    expect(await readFile(path.join(fx.root, '5_Archives/1_Projects/beta (2).md'))).toEqual(live);
  });

  it("refuses a person's own page, as the run's page owner says", async () => {
    const fx = await makeVault();
    const toolbox = createToolbox({ ...fx.context, pageOwner: async (rel) => (rel === '1_Projects/alpha.md' ? 'person' : 'dream') });
    await expectRefused(fx, toolbox, 'archive_page', { path: '1_Projects/alpha.md' }, /forbidden: 1_Projects\/alpha\.md is a person's own page/);
    expect(await expectOk(toolbox, 'archive_page', { path: '1_Projects/beta.md' })).toMatchObject({ from: '1_Projects/beta.md' });
  });

  it('refuses a page that states something still true: a current value, a preference (issue 26)', async () => {
    const fx = await makeVault();
    await writeTree(fx.root, {
      '2_Areas/Location.md': '# Location\n\n## Current\n\n- home city:: Lisbon [[2026-06-09#^f-a81x0c2d3e]]\n',
      '2_Areas/Taste.md': '# Taste\n\n- Prefers dark roast coffee [[2026-06-09#^f-7k2m9q0a1b]]\n',
      '2_Areas/News.md': '# News\n\n- Old news [[2026-06-01#^f-old0000000]]\n',
    });
    const toolbox = createToolbox(fx.context);
    await expectRefused(fx, toolbox, 'archive_page', { path: '2_Areas/Location.md' }, /forbidden: 2_Areas\/Location\.md states 1 thing still true \(e\.g\. "home city:: Lisbon/);
    await expectRefused(fx, toolbox, 'archive_page', { path: '2_Areas/Taste.md' }, /still true.*Prefers dark roast coffee/);
    expect(await expectOk(toolbox, 'archive_page', { path: '2_Areas/News.md' })).toEqual({ from: '2_Areas/News.md', to: '5_Archives/2_Areas/News.md' });
  });

  it('refuses to archive twice, or to move what is not a page', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    await expectRefused(fx, toolbox, 'archive_page', { path: '5_Archives/1_Projects/beta.md' }, /already in 5_Archives/);
    await expectRefused(fx, toolbox, 'archive_page', { path: '1_Projects/missing.md' }, /not_found/);
    await expectRefused(fx, toolbox, 'archive_page', { path: 'logs/2026-06-09.md' }, /forbidden/);
    await expectRefused(fx, toolbox, 'archive_page', { path: 'index.md' }, /forbidden/);
    await expectRefused(fx, toolbox, 'archive_page', { path: '2_Areas/escape.md' }, /outside_vault/);
    await expectRefused(fx, toolbox, 'archive_page', { path: '2_Areas/dangling.md' }, /broken_link/);
    expect(toolbox.archived).toEqual([]);
  });
});

describe('flag_conflict and finish', () => {
  it('records conflicts and the end of the run', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    await expectOk(toolbox, 'flag_conflict', { subject: 'home city', fact_ids: ['f-a81x0c2d3e', '^f-7k2m9q0a1b'], note: 'Lisbon or Porto?' });
    expect(toolbox.conflicts).toEqual([{ subject: 'home city', fact_ids: ['f-a81x0c2d3e', 'f-7k2m9q0a1b'], note: 'Lisbon or Porto?' }]);
    await expectRefused(fx, toolbox, 'flag_conflict', { subject: 'x', fact_ids: [], note: 'y' }, /fact_ids/);
    await expectRefused(fx, toolbox, 'flag_conflict', { subject: 'x', fact_ids: ['../etc'], note: 'y' }, /f-7k2m9q0a1b/);
    expect(toolbox.finished).toBeNull();
    const done = await expectOk(toolbox, 'finish', { summary: 'Flagged the home city.' });
    expect(done.warning).toMatch(/no page changed/);
    expect(toolbox.finished).toEqual({ summary: 'Flagged the home city.' });
    await expectRefused(fx, toolbox, 'write_page', { path: '2_Areas/late.md', content: '# Late\n' }, /finished/);
  });
});

describe('call', () => {
  it('never throws: unknown tools, bad JSON and bad arguments are error results that say what to do', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    for (const name of ['rm', 'shell', 'delete_page', '__proto__', 'constructor', 'toString', '']) {
      await expectRefused(fx, toolbox, name, {}, /unknown tool.*list_pages, read_page/);
    }
    await expectRefused(fx, toolbox, 'write_page', '{"path": "2_Areas/x.md", "content": ', /not valid JSON.*\{"path": …, "content": …\}/);
    await expectRefused(fx, toolbox, 'write_page', 'not json at all', /not valid JSON/);
    await expectRefused(fx, toolbox, 'write_page', '["2_Areas/x.md", "# X"]', /one JSON object/);
    await expectRefused(fx, toolbox, 'write_page', 'null', /one JSON object/);
    await expectRefused(fx, toolbox, 'write_page', { path: '2_Areas/x.md' }, /invalid arguments for write_page: content/);
    await expectRefused(fx, toolbox, 'write_page', { path: 42, content: '# X' }, /path/);
    await expectRefused(fx, toolbox, 'finish', '', /summary/);
    // Arguments of the wrong runtime type still give a result.
    const odd = await toolbox.call('read_page', undefined as unknown as string);
    expect(odd).toMatchObject({ ok: false, error: expect.stringMatching(/path/) });
    // An empty argument string is an empty object, which list_pages accepts.
    expect(await toolbox.call('list_pages', '')).toMatchObject({ ok: true });
  });

  it('turns an I/O error into an error result without the absolute path of the vault', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox(fx.context);
    // Each name is legal, but together they pass the system's path length limit.
    const deep = `${Array.from({ length: 40 }, (_, i) => `${String(i).padStart(3, '0')}${'d'.repeat(200)}`).join('/')}/page.md`;
    const error = await expectRefused(fx, toolbox, 'write_page', { path: deep, content: '# Deep\n' }, /write_page failed: .*try another call/);
    expect(error).not.toContain(await realpath(fx.root));
  });

  it('runs concurrent calls one at a time, so the budget holds', async () => {
    const fx = await makeVault({ maxRunBytes: 100 });
    const toolbox = createToolbox(fx.context);
    const calls = ['a', 'b', 'c'].map((n) => toolbox.call('write_page', JSON.stringify({ path: `2_Areas/${n}.md`, content: `# ${n}\n${n.repeat(40)}\n` })));
    const results = await Promise.all(calls);
    expect(results.map((r) => r.ok)).toEqual([true, true, false]);
    expect(toolbox.bytesWritten).toBe(90);
  });
});

describe('read-only notes (a person\'s own notes on an adopted vault)', () => {
  it('refuse write_page, edit_page and archive_page with an error naming the way out; read_page says so; other pages stay writable', async () => {
    const fx = await makeVault();
    const toolbox = createToolbox({ ...fx.context, readOnly: new Set(['2_Areas/coffee.md']) });
    const page = await expectOk(toolbox, 'read_page', { path: '2_Areas/coffee.md' });
    expect(page).toMatchObject({ read_only: true, content: COFFEE });
    const error = await expectRefused(fx, toolbox, 'write_page', { path: '2_Areas/coffee.md', content: `${COFFEE}- Likes tea [[2026-06-10#^f-tea0000000]]\n` }, /^read_only: 2_Areas\/coffee\.md is a person's own note/);
    expect(error).toMatch(/write_page with a new path, e\.g\. "2_Areas\/coffee notes\.md".*\[\[coffee\]\]/);
    await expectRefused(fx, toolbox, 'edit_page', { path: '2_Areas/coffee.md', old_text: '- Grinds daily\n- Grinds daily\n', new_text: '- Grinds daily\n' }, /^read_only: /);
    await expectRefused(fx, toolbox, 'archive_page', { path: '2_Areas/coffee.md' }, /^read_only: /);
    expect(await readFile(path.join(fx.root, '2_Areas/coffee.md'), 'utf8')).toBe(COFFEE);
    expect(toolbox.touched.size).toBe(0);

    await expectOk(toolbox, 'write_page', { path: '2_Areas/coffee notes.md', content: '# Coffee notes\n\nSee [[coffee]].\n\n- Likes tea [[2026-06-10#^f-tea0000000]]\n' });
    expect(await expectOk(toolbox, 'read_page', { path: '1_Projects/alpha.md' })).not.toHaveProperty('read_only');
    expect([...toolbox.touched]).toEqual(['2_Areas/coffee notes.md']);
  });
});
