/**
 * The `yaml` package, loaded on first use: most frontmatter is read without it (frontmatter-flat.ts, js-yaml), and
 * loading it cost a `forget` at a million facts ~30-40 ms of CPU that only a block of the rarer shapes needs (issue 31).
 * Its CommonJS build, the one a static import of it loads in Node: one copy of the module, so `YAMLError` is the
 * class its parse throws whichever module loaded it first.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

export function yamlLib(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}
