/**
 * `npm run bench:mcp` (issue 27): what the MCP surface costs a model. The generated people corpus (150 days) is
 * remembered and dreamed offline; then the built server is asked over stdio, through the SDK's client, for its
 * tools/list and prompts/list and for k=10 memory_search results on a fixed set of queries. Each answer is
 * measured against the memory text it carries (the results' `text`). Tokens are estimated as characters / 4
 * (no tokenizer is installed; the ratios do not depend on it). The old answer (the results as JSON text, before
 * issue 27) is the same data serialized as it was, so both are measured on the same results.
 * With QMD_NODE and QMD_JS set (a Node 22 binary and @tobilu/qmd's dist/cli/qmd.js), qmd's MCP server is measured
 * the same way on the same vault's files (its BM25 `lex` search, no model). Figures go to docs/benchmarks.md
 * (section mcp-tokens). Flags: --no-write, --keep.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { dreamOffline, openCorpusVault, rememberDay } from './corpus-vault.js';
import { BENCHMARKS_DOC, REPO_ROOT, print, progress, writeSection } from './report.js';
import { markdownTable } from './stats.js';
import { cleanEnv } from './vaults.js';

const NOW = new Date('2030-01-01T06:00:00Z');
const CLI = path.join(REPO_ROOT, 'dist', 'bin', 'vaultkeeper.js');

const QUERIES = [
  'Alice Chen',
  'What does Bob like?',
  'Where does Carol live?',
  'Project Atlas status',
  'who is the tech lead on Project Beacon',
  'coffee',
  'tea after dinner',
  'Lisbon',
  'promised to send the photos',
  'Grace Kim',
  'Flew to Kyoto',
  'hire a contractor',
];

const tokens = (chars: number): number => Math.ceil(chars / 4);

interface Measure {
  query: string;
  results: number;
  memory: number;
  text: number;
  structured: number;
  oldJson: number;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

async function connect(command: string, args: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'bench-mcp-tokens', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'ignore' }));
  return client;
}

async function measureVaultkeeper(root: string, home: string): Promise<{ tools: number; prompts: number; measures: Measure[] }> {
  const client = await connect(process.execPath, [CLI, '--vault', root, 'mcp'], { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') });
  try {
    const tools = JSON.stringify((await client.listTools()).tools).length;
    const prompts = JSON.stringify((await client.listPrompts()).prompts).length;
    const measures: Measure[] = [];
    for (const query of QUERIES) {
      const result = (await client.callTool({ name: 'memory_search', arguments: { query, k: 10 } })) as CallToolResult;
      const value = result.structuredContent as { query: string; results: Array<{ vault: string; text: string }> };
      // The answer before issue 27: the same results as JSON text, without the field this change added.
      const old = JSON.stringify({ query: value.query, results: value.results.map(({ vault: _vault, ...r }) => r) });
      measures.push({
        query,
        results: value.results.length,
        memory: value.results.reduce((n, r) => n + r.text.length, 0),
        text: textOf(result).length,
        structured: JSON.stringify(value).length,
        oldJson: old.length,
      });
    }
    return { tools, prompts, measures };
  } finally {
    await client.close();
  }
}

/** qmd over the same files: its collection is the vault folder (pages and logs), searched by BM25 alone. */
async function measureQmd(root: string, home: string): Promise<{ tools: number; measures: Measure[] } | null> {
  const node = process.env.QMD_NODE;
  const js = process.env.QMD_JS;
  if (node === undefined || js === undefined) return null;
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache'), PATH: process.env.PATH ?? '' };
  const add = spawnSync(node, [js, 'collection', 'add', root, '--name', 'vault', '--mask', '**/*.md'], { env, encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`qmd collection add failed: ${add.stderr}`);
  const client = await connect(node, [js, 'mcp'], env);
  try {
    const tools = JSON.stringify((await client.listTools()).tools).length;
    const measures: Measure[] = [];
    for (const query of QUERIES) {
      const result = (await client.callTool({ name: 'query', arguments: { searches: [{ type: 'lex', query }], limit: 10, rerank: false } })) as CallToolResult;
      const value = (result.structuredContent ?? { results: [] }) as { results: Array<{ snippet: string }> };
      // The memory a snippet carries: its lines without qmd's line-number prefixes.
      const memory = value.results.reduce((n, r) => n + r.snippet.replace(/^\s*\d+: ?/gm, '').length, 0);
      measures.push({ query, results: value.results.length, memory, text: textOf(result).length, structured: JSON.stringify(value).length, oldJson: 0 });
    }
    return { tools, measures };
  } finally {
    await client.close();
  }
}

const sum = (measures: readonly Measure[], key: keyof Omit<Measure, 'query'>): number => measures.reduce((n, m) => n + m[key], 0);
const ratio = (a: number, b: number): string => (b === 0 ? 'n/a' : `${(a / b).toFixed(2)}×`);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'no-write': { type: 'boolean' }, keep: { type: 'boolean' } } });
  const base = await mkdtemp(path.join(os.tmpdir(), 'vk-bench-mcp-'));
  try {
    const env = cleanEnv();
    const { root, vault, days, corpus } = await openCorpusVault(base, env);
    progress(`remembering ${corpus.facts.length} facts over ${days.length} days`);
    for (const [date, facts] of days) await rememberDay(vault, date, facts);
    const home = path.join(base, 'home');
    progress('measuring the facts alone (before any dream)');
    const factsOnly = await measureVaultkeeper(root, home);
    progress('dreaming offline until nothing is pending');
    const runs = await dreamOffline(vault, NOW, 60);
    await vault.close();
    progress(`${runs.runs} dreams; measuring the MCP server`);
    const vk = await measureVaultkeeper(root, home);
    const qmd = await measureQmd(root, home).catch((error: unknown) => {
      progress(`qmd not measured: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });

    const rows = vk.measures.map((m) => [m.query, String(m.results), String(m.memory), String(m.text), ratio(m.text, m.memory), String(m.oldJson), ratio(m.oldJson, m.memory), String(m.structured)]);
    const all = vk.measures;
    rows.push(['**all**', String(sum(all, 'results')), String(sum(all, 'memory')), String(sum(all, 'text')), ratio(sum(all, 'text'), sum(all, 'memory')), String(sum(all, 'oldJson')), ratio(sum(all, 'oldJson'), sum(all, 'memory')), String(sum(all, 'structured'))]);
    const lines = [
      `The generated people corpus (${corpus.facts.length} facts over ${days.length} days, dreamed offline in ${runs.runs} runs), full text (no embedder). ` +
        `Each query through the SDK client over stdio, memory_search with k=10. Characters; tokens ≈ characters / 4 (\`npm run bench:mcp\`).`,
      '',
      markdownTable([['query', 'results', 'memory text', 'answer text', 'answer / memory', 'old JSON text', 'old / memory', 'structuredContent'], ...rows]),
      '',
      markdownTable([
          ['surface', 'characters', '≈ tokens'],
          ['vaultkeeper tools/list (8 tools)', String(vk.tools), String(tokens(vk.tools))],
          ['vaultkeeper prompts/list (3 prompts)', String(vk.prompts), String(tokens(vk.prompts))],
          ['vaultkeeper k=10 answer text, mean of the queries', String(Math.round(sum(all, 'text') / all.length)), String(tokens(sum(all, 'text') / all.length))],
          [
            `the same before any dream (facts alone): answer / memory ${ratio(sum(factsOnly.measures, 'text'), sum(factsOnly.measures, 'memory'))}, old JSON / memory ${ratio(sum(factsOnly.measures, 'oldJson'), sum(factsOnly.measures, 'memory'))}`,
            String(Math.round(sum(factsOnly.measures, 'text') / factsOnly.measures.length)),
            String(tokens(sum(factsOnly.measures, 'text') / factsOnly.measures.length)),
          ],
          ...(qmd === null
            ? []
            : [
                ['qmd 2.8.3 tools/list (4 tools)', String(qmd.tools), String(tokens(qmd.tools))],
                ['qmd k=10 `query` (lex) answer text, mean', String(Math.round(sum(qmd.measures, 'text') / qmd.measures.length)), String(tokens(sum(qmd.measures, 'text') / qmd.measures.length))],
                ['qmd k=10 structuredContent (its snippets), mean', String(Math.round(sum(qmd.measures, 'structured') / qmd.measures.length)), String(tokens(sum(qmd.measures, 'structured') / qmd.measures.length))],
                ['qmd answer text / the snippet text it carries', ratio(sum(qmd.measures, 'text'), sum(qmd.measures, 'memory')), ''],
                ['qmd structuredContent / the snippet text it carries', ratio(sum(qmd.measures, 'structured'), sum(qmd.measures, 'memory')), ''],
              ]),
      ]),
    ];
    const body = lines.join('\n');
    print(body);
    if (!values['no-write']) await writeSection(BENCHMARKS_DOC, 'mcp-tokens', body);
  } finally {
    if (values.keep) progress(`kept ${base}`);
    else await rm(base, { recursive: true, force: true });
  }
}

await main();
