/**
 * Leads a person wrote (issue 25). A dream page's lead is the dream's and is rewritten on each run that changes
 * the page, but once a person edits it the lead is theirs (DESIGN §9: the dream never removes what a person
 * wrote): rewriting it would fail the run's person_lines check, and the page would stop being consolidated.
 * So a page whose lead git blames, at the run's base, on a person's commit (no vaultkeeper trailer, or the
 * snapshot of their edits) keeps its lead as it is; the rest of the page is consolidated as usual.
 */
import { historiesAtHead } from '../git/path-history.js';
import { gitRunner } from '../git/run.js';
import { isPersonsCommit } from './ownership.js';

/** The lines a lead may span: between the H1 and the first `## `, within the first lines of a page. */
const LEAD_WINDOW = 40;
const PART_OF_RE = /^Part of \[\[[^\]]+\]\]\.$/;

/**
 * The pages among `rels` (vault-relative, committed at `root`'s HEAD) whose lead a person last changed. One
 * `git log` for all of them; a blame only for pages a person ever committed to.
 */
export async function personLeads(root: string, rels: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  if (rels.length === 0) return out;
  const histories = await historiesAtHead(root, rels);
  for (const rel of [...rels].sort()) {
    const commits = histories.get(rel) ?? [];
    const persons = new Set(commits.filter((c) => isPersonsCommit(c.op)).map((c) => c.sha));
    if (persons.size === 0) continue;
    const blame = await gitRunner(root, ['core.quotepath=false'])
      .raw(['blame', '--porcelain', '-L', `1,${LEAD_WINDOW}`, 'HEAD', '--', rel])
      .catch(() => '');
    if (leadShas(blame).some((sha) => persons.has(sha))) out.add(rel);
  }
  return out;
}

/** The commits that last changed the lead's lines, from `git blame --porcelain` output. */
function leadShas(blame: string): string[] {
  const lines: Array<{ sha: string; text: string }> = [];
  let sha = '';
  for (const row of blame.split('\n')) {
    const header = /^([0-9a-f]{40,64}) \d+ \d+/.exec(row);
    if (header !== null) sha = header[1]!;
    else if (row.startsWith('\t')) lines.push({ sha, text: row.slice(1).replace(/\r$/, '') });
  }
  let frontmatter = lines[0]?.text === '---';
  const shas: string[] = [];
  let inLead = false;
  for (const [i, { sha: by, text }] of lines.entries()) {
    if (frontmatter) {
      if (i > 0 && (text === '---' || text === '...')) frontmatter = false;
      continue;
    }
    if (/^# /.test(text) && !inLead) {
      inLead = true;
      continue;
    }
    if (!inLead) continue;
    if (/^## /.test(text)) break;
    if (text.trim() !== '' && !PART_OF_RE.test(text.trim())) shas.push(by);
  }
  return shas;
}
