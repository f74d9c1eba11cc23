/**
 * No dead or ambiguous links (DESIGN §3, §10): `doctor` reports fact lines without `^id`, citations that
 * do not resolve and pages named like a daily log; `doctor --fix` appends the derived ids in one commit,
 * changing no other byte of the logs; digests get names no log shares.
 */
import { appendFile, readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeDigests } from '../../src/daemon/jobs/digest.js';
import { readLog } from '../../src/logs/factlog.js';
import { openVault } from '../../src/vault/vault.js';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir } from '../helpers/tmp.js';
import { git, gitStatus, initVault, listFiles } from '../helpers/vault.js';

const tempDir = useTempDir();
const DATE = '2026-06-09';
const LOG = `logs/${DATE}.md`;

interface Problem {
  code: string;
  path: string | null;
  line: number | null;
  message: string;
}
interface DoctorJson {
  ok: boolean;
  problems: Problem[];
  fixed?: { path: string; line: number; id: string }[];
  commit?: string | null;
}

async function doctor(root: string, args: string[] = []): Promise<DoctorJson> {
  const result = await runCli(['doctor', ...args, '--json'], { cwd: root });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as DoctorJson;
}

async function commitByHand(root: string): Promise<void> {
  await git(root, ['add', '-A']);
  await git(root, ['-c', 'user.name=Person', '-c', 'user.email=person@example.com', 'commit', '-q', '-m', 'my notes']);
}

describe('doctor and block ids', () => {
  it('reports hand-written lines without ^id and the citations they break, and --fix appends the ids in one commit', async () => {
    const root = await initVault(await tempDir());
    const [written] = (await runJson<{ facts: { id: string }[] }>(['remember', 'Likes green tea', '-t', 'tea', '--date', DATE], { cwd: root })).facts;
    // A person types two facts, one with CRLF and trailing blanks, the other a keyed field with a tag.
    await appendFile(path.join(root, LOG), '- [fact] Plays the cello on Sundays \t\r\n- [fact] [partner:: Ana] #family\n');
    const before = await doctor(root);
    const missing = before.problems.filter((p) => p.code === 'LOG_NO_ID');
    expect(missing.map((p) => [p.path, p.line])).toEqual([
      [LOG, 5],
      [LOG, 6],
    ]);
    const derived = missing.map((p) => /\^(f-[0-9a-z]{10})/.exec(p.message)![1]!);

    await mkdir(path.join(root, '2_Areas'), { recursive: true });
    await writeFile(
      path.join(root, '2_Areas', 'Music.md'),
      `# Music\n\n- Plays the cello [[${DATE}#^${derived[0]}]]\n- Likes green tea [[${DATE}#^${written!.id}]]\n- Sings [[${DATE}#^f-0000000000]]\n`,
    );
    // An old digest named like the log it summed up.
    await mkdir(path.join(root, '4_Resources', 'digests'), { recursive: true });
    await writeFile(path.join(root, '4_Resources', 'digests', `${DATE}.md`), '# Digest\n');
    await commitByHand(root);

    const report = await doctor(root);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.code, p.path, p.line]).sort()).toEqual(
      [
        ['LOG_NO_ID', LOG, 5],
        ['LOG_NO_ID', LOG, 6],
        ['CITATION_NO_BLOCK', '2_Areas/Music.md', 3],
        ['BROKEN_CITATION', '2_Areas/Music.md', 5],
        ['PAGE_NAME', `4_Resources/digests/${DATE}.md`, null],
      ].sort(),
    );

    const logBefore = await readFile(path.join(root, LOG), 'utf8');
    const head = (await git(root, ['rev-parse', 'HEAD'])).trim();
    const fixed = await doctor(root, ['--fix']);
    expect(fixed.fixed).toEqual([
      { path: LOG, line: 5, id: derived[0] },
      { path: LOG, line: 6, id: derived[1] },
    ]);
    const logAfter = await readFile(path.join(root, LOG), 'utf8');
    // Only the ids were added (a fixed line loses its trailing blanks); line endings and all else stay.
    expect(logAfter).toBe(
      logBefore
        .replace('- [fact] Plays the cello on Sundays \t\r\n', `- [fact] Plays the cello on Sundays ^${derived[0]}\r\n`)
        .replace('- [fact] [partner:: Ana] #family\n', `- [fact] [partner:: Ana] #family ^${derived[1]}\n`),
    );
    expect((await git(root, ['rev-list', '--count', `${head}..HEAD`])).trim()).toBe('1');
    expect((await git(root, ['show', '--name-only', '--format=', 'HEAD'])).trim()).toBe(LOG);
    expect(await git(root, ['log', '-1', '--format=%B'])).toMatch(/^Vaultkeeper-Op: doctor-fix$/m);
    expect(fixed.commit).toBe((await git(root, ['rev-parse', 'HEAD'])).trim());
    expect(await gitStatus(root)).toEqual([]);
    expect(fixed.problems.map((p) => p.code).sort()).toEqual(['BROKEN_CITATION', 'PAGE_NAME']);

    // The ids are the ones search already gave: the facts read back unchanged, now with ids written.
    const parsed = await readLog(root, DATE);
    expect(parsed.facts.map((f) => [f.id, f.explicitId])).toEqual([
      [written!.id, true],
      [derived[0], true],
      [derived[1], true],
    ]);

    const again = await runCli(['doctor', '--fix'], { cwd: root });
    expect(again.stdout).toMatch(/^fixed nothing/);
    expect((await git(root, ['rev-list', '--count', `${head}..HEAD`])).trim()).toBe('1');
  });

  it('names digests so that no log shares their name', async () => {
    const root = await initVault(await tempDir());
    await runJson(['remember', 'Likes green tea', '-t', 'tea', '--date', DATE], { cwd: root });
    const vault = await openVault({ vault: root });
    const result = await writeDigests(vault, DATE);
    expect(result.written).toEqual([`4_Resources/digests/Digest ${DATE}.md`, '4_Resources/digests/Digest 2026-W24.md']);
    const names = (await listFiles(root)).map((f) => path.posix.basename(f));
    expect(names.filter((n) => n === `${DATE}.md`)).toEqual([`${DATE}.md`]);
    const report = await doctor(root);
    expect(report.problems).toEqual([]);
    const digest = await readFile(path.join(root, '4_Resources', 'digests', `Digest ${DATE}.md`), 'utf8');
    expect(digest).toMatch(new RegExp(`\\[\\[${DATE}#\\^f-[0-9a-z]{10}\\]\\]`));
  });
});
