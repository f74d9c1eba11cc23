/** The files a glob names (`*`, `?`, `**`, `[…]`, `{a,b}`; `~` for the home folder), found by walking from its fixed prefix. */
import { readdir } from 'node:fs/promises';
import path from 'node:path';

const MAGIC_RE = /[*?[{]/;

/** Absolute paths of the regular files matching `pattern`, sorted; a relative pattern is taken from `cwd`. */
export async function globFiles(pattern: string, cwd: string, home: string): Promise<string[]> {
  const expanded = pattern === '~' || pattern.startsWith('~/') ? path.join(home, pattern.slice(1)) : pattern;
  const absolute = toPosix(path.resolve(cwd, expanded));
  const segments = absolute.split('/');
  const firstMagic = segments.findIndex((s) => MAGIC_RE.test(s));
  if (firstMagic < 0) return [absolute];
  const base = segments.slice(0, firstMagic).join('/') || '/';
  const rest = segments.slice(firstMagic);
  const matcher = globRegExp(rest.join('/'));
  const maxDepth = rest.includes('**') ? Infinity : rest.length;
  const out: string[] = [];
  await walk(base, '', 1, maxDepth, (rel) => {
    if (matcher.test(rel)) out.push(path.join(base, rel));
  });
  return out.sort();
}

async function walk(dir: string, rel: string, depth: number, maxDepth: number, visit: (rel: string) => void): Promise<void> {
  let entries;
  try {
    entries = await readdir(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return; // missing or unreadable: nothing matches there
  }
  for (const entry of entries) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isFile()) visit(child);
    else if (entry.isDirectory() && depth < maxDepth) await walk(dir, child, depth + 1, maxDepth, visit);
  }
}

/** A glob (with `/` separators) as an anchored regular expression. */
export function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) {
        re += '\\[';
      } else {
        const body = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = glob.indexOf('}', i + 1);
      if (end < 0) {
        re += '\\{';
      } else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(',')
          .map((alt) => globRegExp(alt).source.slice(1, -1))
          .join('|')})`;
        i = end;
      }
    } else {
      re += c.replace(/[.+^$()|\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/** Whether an absolute file path is one `pattern` names (the same expansion of `~` and relative patterns as globFiles). */
export function globMatches(file: string, pattern: string, cwd: string, home: string): boolean {
  const expanded = pattern === '~' || pattern.startsWith('~/') ? path.join(home, pattern.slice(1)) : pattern;
  return globRegExp(toPosix(path.resolve(cwd, expanded))).test(toPosix(path.resolve(file)));
}
