/**
 * Files the package ships beside its code (package.json, vault-template/, samples/, the dream's
 * instructions), found from the package root whichever layout runs this code: the sources (src/), the
 * compiled modules (dist/) or the CLI bundle (dist/bin/), where a module no longer sits at its source depth.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** An absolute path to `rel` under the package root: the nearest folder above this module that holds a package.json. */
export function packageFile(rel: string): string {
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, rel);
    // No package.json above (a copy of the files alone): src/ and dist/ modules sit two levels below the root.
    if (path.dirname(dir) === dir) return path.join(start, '..', '..', rel);
  }
}
