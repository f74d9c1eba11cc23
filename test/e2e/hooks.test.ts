/**
 * `vaultkeeper hooks install|uninstall` on a temp HOME through the built CLI: the agent's settings get
 * vaultkeeper's hooks (twice = the same bytes), the person's own settings stay, uninstall gives back the
 * file as it was; `hook session-start` stays within its budget; `hook ingest` reads the session a hook
 * names now, and only a captured one.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runJson } from '../helpers/cli.js';
import { useTempDir, writeTree } from '../helpers/tmp.js';
import { initVault } from '../helpers/vault.js';

const tempDir = useTempDir();

const OWN_SETTINGS = `${JSON.stringify({ model: 'opus', hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'notify-send done' }] }] }, permissions: { allow: ['Bash(ls)'] } }, null, 2)}\n`;

async function setup(): Promise<{ dir: string; vault: string; home: string; env: Record<string, string> }> {
  const dir = await tempDir();
  const vault = await initVault(dir);
  const home = path.join(dir, 'home');
  await writeTree(home, { '.claude/settings.json': OWN_SETTINGS });
  return { dir, vault, home, env: { HOME: home, VAULTKEEPER_TIMEZONE: 'UTC' } };
}

describe('vaultkeeper hooks', () => {
  it('installs Claude Code hooks idempotently beside the person\'s own, and uninstall restores the file', async () => {
    const { vault, home, env } = await setup();
    const file = path.join(home, '.claude/settings.json');
    const first = await runCli(['--vault', vault, 'hooks', 'install', 'claude-code'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^installed: SessionStart, Stop, PreCompact, SessionEnd hooks in .*settings\.json\nnow capturing claude-code \(all projects\)/);
    const installed = await readFile(file, 'utf8');
    const settings = JSON.parse(installed) as { model: string; permissions: unknown; hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    expect(settings.model).toBe('opus');
    expect(settings.permissions).toEqual({ allow: ['Bash(ls)'] });
    expect(settings.hooks.Stop!.map((g) => g.hooks[0]!.command)).toEqual(['notify-send done', expect.stringMatching(/vaultkeeper\.js'? --vault .+ hook ingest$/)]);
    expect(settings.hooks.SessionStart![0]!.hooks[0]!.command).toMatch(/ hook session-start$/);
    expect(Object.keys(settings.hooks)).toEqual(['Stop', 'SessionStart', 'PreCompact', 'SessionEnd']);

    const second = await runCli(['--vault', vault, 'hooks', 'install', 'claude-code'], { env });
    expect(second.stdout).toMatch(/^already installed/);
    expect(await readFile(file, 'utf8')).toBe(installed);

    const removed = await runCli(['--vault', vault, 'hooks', 'uninstall', 'claude-code'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(OWN_SETTINGS);
    const again = await runCli(['--vault', vault, 'hooks', 'uninstall', 'claude-code'], { env });
    expect(again.stdout).toMatch(/^no vaultkeeper hooks in /);
  });

  it('makes Codex\'s hooks.json and Gemini CLI\'s settings.json when missing, names Gemini\'s handlers, and removes what it made', async () => {
    const { vault, home, env } = await setup();
    await runJson(['--vault', vault, 'hooks', 'install', 'codex'], { env });
    const codex = JSON.parse(await readFile(path.join(home, '.codex/hooks.json'), 'utf8')) as { hooks: Record<string, unknown> };
    expect(Object.keys(codex.hooks)).toEqual(['SessionStart', 'Stop', 'PreCompact']);
    await runJson(['--vault', vault, 'hooks', 'install', 'gemini'], { env });
    const gemini = JSON.parse(await readFile(path.join(home, '.gemini/settings.json'), 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ name: string }> }>> };
    expect(Object.keys(gemini.hooks)).toEqual(['SessionStart', 'PreCompress', 'SessionEnd']);
    expect(gemini.hooks.SessionStart![0]!.hooks[0]!.name).toBe('vaultkeeper-session-start');
    for (const agent of ['codex', 'gemini']) await runJson(['--vault', vault, 'hooks', 'uninstall', agent], { env });
    await expect(stat(path.join(home, '.codex/hooks.json'))).rejects.toThrow(/ENOENT/);
    await expect(stat(path.join(home, '.gemini/settings.json'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses settings that are not JSON, leaving them as they are, and an agent without hooks', async () => {
    const { vault, home, env } = await setup();
    await writeFile(path.join(home, '.claude/settings.json'), '{ "model": "opus", }');
    const result = await runCli(['--vault', vault, 'hooks', 'install', 'claude-code'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/settings\.json is not valid JSON; it was left as it is/);
    expect(await readFile(path.join(home, '.claude/settings.json'), 'utf8')).toBe('{ "model": "opus", }');
    expect((await runCli(['--vault', vault, 'hooks', 'install', 'aider'], { env })).code).toBe(2);
  });

  it('session-start gives MEMORY.md and the project within the token budget, as the hook JSON', async () => {
    const { vault, env } = await setup();
    const memory = ['# Memory', '', '## Health', ...Array.from({ length: 200 }, (_, i) => `- Fact number ${i} about the person, long enough to count [[Page ${i}]]`)].join('\n');
    await writeFile(path.join(vault, 'MEMORY.md'), `${memory}\n`);
    const result = await runCli(['--vault', vault, 'hook', 'session-start', '--budget', '300'], { env, input: JSON.stringify({ hook_event_name: 'SessionStart', cwd: '/home/rui/blog', session_id: 's' }) });
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(output.hookSpecificOutput.hookEventName).toBe('SessionStart');
    const context = output.hookSpecificOutput.additionalContext;
    expect(context.length).toBeLessThanOrEqual(300 * 4);
    expect(context).toContain('- Fact number 0 about the person');
    expect(context).toMatch(/… \d+ more lines in MEMORY\.md/);
    const text = await runCli(['--vault', vault, 'hook', 'session-start', '--text', '--budget', '2000'], { env, input: '' });
    expect(text.stdout).toMatch(/^# Memory \(vaultkeeper/);
    expect(text.stdout.length).toBeLessThanOrEqual(2000 * 4 + 1);
  });

  it('hook ingest reads the session a hook names now, only when its project is captured, and prints nothing', async () => {
    const { vault, home, env } = await setup();
    const project = path.join(home, 'code', 'blog');
    await runJson(['--vault', vault, 'hooks', 'install', 'claude-code', '--project', project], { env });
    expect(JSON.parse(await readFile(path.join(project, '.claude/settings.local.json'), 'utf8'))).toHaveProperty('hooks.SessionStart');
    const line = (cwd: string, text: string): string => `${JSON.stringify({ type: 'user', sessionId: 'eeeeeeee-1', cwd, uuid: 'u', timestamp: '2026-06-09T10:00:00Z', message: { role: 'user', content: text } })}\n`;
    const mine = path.join(home, '.claude/projects', project.replace(/[^A-Za-z0-9]/g, '-'), 'eeeeeeee-1.jsonl');
    const other = path.join(home, '.claude/projects/-home-rui-bank/ffffffff-2.jsonl');
    await writeTree('/', { [mine.slice(1)]: line(project, 'I prefer dark roast coffee'), [other.slice(1)]: line('/home/rui/bank', 'I prefer the blue card') });
    const run = (file: string): Promise<{ code: number; stdout: string; stderr: string }> => runCli(['--vault', vault, 'hook', 'ingest', '--offline'], { env, input: JSON.stringify({ hook_event_name: 'Stop', transcript_path: file }) });
    const read = await run(mine);
    expect(read).toMatchObject({ code: 0, stdout: '' });
    const skipped = await runCli(['--vault', vault, 'hook', 'ingest', '--offline', '--json'], { env, input: JSON.stringify({ transcript_path: other }) });
    expect(JSON.parse(skipped.stdout)).toMatchObject({ outcome: 'not-captured', facts: 0 });
    const again = await runCli(['--vault', vault, 'hook', 'ingest', '--offline', '--json'], { env, input: JSON.stringify({ transcript_path: mine }) });
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'unchanged', facts: 0 });
    const logs = (await runJson<{ results: Array<{ text: string }> }>(['--vault', vault, 'search', 'prefer'], { env })) as unknown as Array<{ text: string }> | { results: Array<{ text: string }> };
    const texts = JSON.stringify(logs);
    expect(texts).toContain('dark roast');
    expect(texts).not.toContain('blue card');
    const status = await runJson<{ capture: { sources: Array<{ agent: string; project: string }> } }>(['--vault', vault, 'status'], { env });
    expect(status.capture.sources).toEqual([expect.objectContaining({ agent: 'claude-code', project })]);
  });
});
