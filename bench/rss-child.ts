/**
 * `node rss-child.js SCRIPT ...args`: runs SCRIPT in this process and reports its peak RSS on stderr at
 * exit. The fallback of child.ts when GNU time is not installed.
 */
import { writeSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [node, , script, ...args] = process.argv;
if (script === undefined) {
  process.stderr.write('usage: node rss-child.js SCRIPT [ARGS...]\n');
  process.exitCode = 2;
} else {
  process.argv = [node!, script, ...args];
  process.on('exit', () => {
    // resourceUsage().maxRSS is in kilobytes.
    writeSync(2, `\nvk-bench maxrss-kb: ${process.resourceUsage().maxRSS}\n`);
  });
  await import(pathToFileURL(path.resolve(script)).href);
}
