/**
 * The frontmatter YAML fast path against `yaml.parse` on many generated blocks (the unit test runs 3,000;
 * docs/benchmarks.md reports sweeps of 200,000). Prints the counts and the first blocks that differ.
 *   node dist-bench/bench/yaml-sweep.js [--seed N] [--blocks N]
 */
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { parse } from 'yaml';
import { parseFrontmatterYaml, readFast, YAML_OPTIONS } from '#src/pages/frontmatter-yaml.js';
import { prng } from '../test/helpers/update-stream.js';
import { yamlBlock } from '../test/helpers/yaml-blocks.js';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '20261125' }, blocks: { type: 'string', default: '200000' } } });

/** `yaml` makes a fresh symbol for a `!!merge` value: symbols compare by description. */
function comparable(value: unknown): unknown {
  if (typeof value === 'symbol') return `symbol ${value.description}`;
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, comparable(item)]));
  return value;
}

function outcome(read: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: comparable(read()) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const random = prng(Number(values.seed));
let valid = 0;
let fast = 0;
const differing: string[] = [];
for (let i = 0; i < Number(values.blocks); i++) {
  const block = yamlBlock(random);
  const expected = outcome(() => parse(block, YAML_OPTIONS));
  if ('value' in expected) valid++;
  if (readFast(block) !== undefined) fast++;
  if (!isDeepStrictEqual(outcome(() => parseFrontmatterYaml(block)), expected)) differing.push(block);
}
console.log(JSON.stringify({ seed: Number(values.seed), blocks: Number(values.blocks), validForYaml: valid, fastPath: fast, differing: differing.length }));
for (const block of differing.slice(0, 10)) console.log(JSON.stringify(block));
