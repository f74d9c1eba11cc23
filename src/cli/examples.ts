/**
 * An example for every command's --help (commander's `addHelpText('after')`): the line a person copies first.
 * Keyed by the command's path (`daemon start`); a command that sets its own help text keeps it.
 */
import type { EventEmitter } from 'node:events';
import type { Command } from 'commander';

const EXAMPLES: Record<string, string[]> = {
  init: ['vaultkeeper init ~/memory', 'vaultkeeper init --adopt ~/Obsidian/Notes'],
  remember: ['vaultkeeper remember "Prefers dark roast coffee" -c preference -t coffee', 'echo "home city:: Lisbon" | vaultkeeper remember --stdin'],
  forget: ['vaultkeeper forget f-7k2m9q0a1b --reason "wrong"', 'vaultkeeper forget --match "door code"'],
  history: ['vaultkeeper history 2_Areas/Coffee.md -n 5'],
  doctor: ['vaultkeeper doctor', 'vaultkeeper doctor --fix --json'],
  reindex: ['vaultkeeper reindex', 'vaultkeeper reindex --clear --json'],
  search: ['vaultkeeper search "coffee" -k 5', 'vaultkeeper search "where does Ana live" --since 2026-01-01 --json'],
  ingest: ['vaultkeeper ingest ~/.claude/projects/my-app/3f9a1c2b.jsonl', 'vaultkeeper ingest chats/ --offline --json'],
  import: ['vaultkeeper import ~/Downloads/chatgpt-export/', 'vaultkeeper import mem0.json --json', 'vaultkeeper import ~/basic-memory'],
  export: ['vaultkeeper export > facts.jsonl', 'vaultkeeper export --format csv --out facts.csv'],
  watch: ['vaultkeeper watch --debounce 500'],
  dream: ['vaultkeeper dream', 'vaultkeeper dream --force --dry-run'],
  undo: ['vaultkeeper undo r-20260610-031207'],
  conflicts: ['vaultkeeper conflicts --all'],
  status: ['vaultkeeper status', 'vaultkeeper status --dashboard --json'],
  mcp: ['vaultkeeper mcp', 'vaultkeeper mcp --http --port 8765'],
  completion: ['vaultkeeper completion bash > ~/.local/share/bash-completion/completions/vaultkeeper'],
  serve: ['vaultkeeper serve --vault ~/memory'],
  daemon: ['vaultkeeper daemon start --background', 'vaultkeeper daemon log --tail 20'],
  'daemon start': ['vaultkeeper daemon start --background', 'vaultkeeper daemon start --background --all'],
  'daemon stop': ['vaultkeeper daemon stop'],
  'daemon status': ['vaultkeeper daemon status --json', 'vaultkeeper daemon status --all'],
  'daemon log': ['vaultkeeper daemon log --job dream --follow'],
  demo: ['vaultkeeper demo', 'vaultkeeper demo /tmp/vk-demo'],
  sync: ['vaultkeeper sync --remote ~/Sync/memory.git   # once', 'vaultkeeper sync                              # then, on each machine'],
  clone: ['vaultkeeper clone ~/Sync/memory.git ~/memory'],
  server: ['vaultkeeper server --port 8787', 'vaultkeeper server --no-workers   # then, as many as needed: vaultkeeper worker'],
  'server vault': ['vaultkeeper server vault create notes --tenant ana', 'vaultkeeper server vault list --tenant ana'],
  'server vault create': ['vaultkeeper server vault create notes --tenant ana'],
  'server vault list': ['vaultkeeper server vault list --json'],
  'server token': ['vaultkeeper server token create --tenant ana --vault notes --scope read,write', 'vaultkeeper server token revoke 3f9a1c2b7d4e'],
  'server token create': ['vaultkeeper server token create --tenant ana --vault notes --scope read,write'],
  'server token revoke': ['vaultkeeper server token revoke 3f9a1c2b7d4e'],
  'server tenant': ['vaultkeeper server tenant ana --tokens-per-day 200000 --cost-per-day 2'],
  worker: ['vaultkeeper worker --concurrency 4'],
  purge: ['vaultkeeper purge f-7k2m9q0a1b --reason "a password"', 'vaultkeeper purge --match "door code" --yes --json'],
  capture: ['vaultkeeper capture add claude-code --project ~/code/app', 'vaultkeeper capture list', 'vaultkeeper capture remove claude-code'],
  'capture add': ['vaultkeeper capture add claude-code --project ~/code/app', 'vaultkeeper capture add codex'],
  'capture list': ['vaultkeeper capture list --json'],
  'capture remove': ['vaultkeeper capture remove claude-code --project ~/code/app'],
  hooks: ['vaultkeeper hooks install claude-code', 'vaultkeeper hooks install gemini --project ~/code/app', 'vaultkeeper hooks uninstall claude-code'],
  'hooks install': ['vaultkeeper hooks install claude-code', 'vaultkeeper hooks install codex --json'],
  'hooks uninstall': ['vaultkeeper hooks uninstall claude-code'],
  hook: ['echo \'{"cwd": "/home/me/code/app"}\' | vaultkeeper hook session-start --text'],
  'hook session-start': ['echo \'{"cwd": "/home/me/code/app"}\' | vaultkeeper hook session-start --text --budget 800'],
  'hook ingest': ['echo \'{"transcript_path": "/home/me/.claude/projects/-home-me-app/S.jsonl"}\' | vaultkeeper hook ingest --json'],
  vaults: ['vaultkeeper vaults add work ~/memory-work', 'vaultkeeper vaults list'],
  'vaults add': ['vaultkeeper vaults add work ~/memory-work'],
  'vaults list': ['vaultkeeper vaults list --json'],
  'vaults remove': ['vaultkeeper vaults remove work'],
};

/** The examples block of a command's help, for a command that writes its own help text (server, worker). */
export function examplesText(name: string): string {
  const lines = EXAMPLES[name] ?? [];
  return lines.length === 0 ? '' : `\n${lines.length === 1 ? 'Example' : 'Examples'}:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/** Adds the examples to `program` and every command under it. */
export function addExamples(command: Command, prefix = ''): void {
  for (const sub of command.commands) {
    const name = `${prefix}${sub.name()}`;
    const lines = EXAMPLES[name];
    if (lines !== undefined && (sub as unknown as EventEmitter).listenerCount('afterHelp') === 0) {
      sub.addHelpText('after', `\n${lines.length === 1 ? 'Example' : 'Examples'}:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
    }
    addExamples(sub, `${name} `);
  }
}
