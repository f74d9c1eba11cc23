/**
 * Files the package ships beside its code (package.json, vault-template/, samples/, the dream's
 * instructions), found from the package root whichever layout runs this code: the sources (src/), the
 * compiled modules (dist/) or the CLI bundle (dist/bin/), where a module no longer sits at its source depth.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * An absolute path to `rel` under the package root: the nearest folder above this module that holds a package.json
 * naming a package (dist/bin/ holds one that only says its modules are CommonJS: scripts/bundle-cli.mjs).
 */
export function packageFile(rel: string): string {
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (namesPackage(path.join(dir, 'package.json'))) return path.join(dir, rel);
    // No package.json above (a copy of the files alone): src/ and dist/ modules sit two levels below the root.
    if (path.dirname(dir) === dir) return path.join(start, '..', '..', rel);
  }
}

/** Whether `file` is a package.json with a name (false when missing or unreadable). */
function namesPackage(file: string): boolean {
  try {
    return typeof (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'string';
  } catch {
    return false;
  }
}
