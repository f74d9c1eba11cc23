/**
 * Every agent's transcript format from its fixture (test/fixtures/transcripts/, written from each tool's
 * documented or observed format): recognised by its content whatever the file is called, with its turns,
 * roles and own timestamps; content in no known format is an error, never zero turns.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTranscript, UnknownTranscriptError, type Transcript } from '../../src/extract/transcript.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));
const read = async (name: string, as = 'renamed.dat'): Promise<Transcript> => readTranscript(await readFile(`${FIXTURES}${name}`), as);
const turns = (t: Transcript): Array<[string, string, string | undefined]> => t.turns.map((turn) => [turn.role, turn.text, turn.at?.toISOString()]);

describe('transcript formats, detected from the content alone', () => {
  it('Claude Code: user and assistant lines, tool traffic left out, each turn at its own time', async () => {
    const t = await read('claude-code.jsonl');
    expect(t.format).toBe('claude-code');
    expect(t.sessionId).toBe('3f9a1c2b-7d4e-4a61-9f0e-2b8c5d6e7f80');
    expect(turns(t)).toEqual([
      ['user', 'I prefer dark roast coffee', '2026-06-09T13:32:00.000Z'],
      ['assistant', 'Noted, dark roast.', '2026-06-09T13:32:05.000Z'],
      ['user', 'My sister Ana lives in Porto', '2026-06-10T09:15:00.000Z'],
    ]);
  });

  it('Codex CLI rollout: response_item messages, not the environment context, events or tool calls', async () => {
    const t = await read('codex-rollout.jsonl');
    expect(t.format).toBe('codex');
    expect(t.sessionId).toBe('0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(t.cwd).toBe('/home/rui/api');
    expect(turns(t)).toEqual([
      ['user', 'We deploy the API to Fly.io every Friday', '2026-06-11T08:01:00.000Z'],
      ['assistant', 'Got it: Friday deploys to Fly.io.', '2026-06-11T08:01:12.000Z'],
      ['user', 'My manager is Joana Silva', '2026-06-12T17:30:00.000Z'],
    ]);
  });

  it('Codex CLI rollout of the older layout: bare items after a first line of session meta', async () => {
    const old = [
      JSON.stringify({ id: 's-old', timestamp: '2025-05-01T10:00:00Z', instructions: null }),
      JSON.stringify({ record_type: 'state' }),
      JSON.stringify({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'I use fish as my shell' }] }),
      JSON.stringify({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fish, noted.' }] }),
    ].join('\n');
    const t = await readTranscript(Buffer.from(old), 'x');
    expect(t.format).toBe('codex');
    expect(t.sessionId).toBe('s-old');
    expect(t.startedAt?.toISOString()).toBe('2025-05-01T10:00:00.000Z');
    expect(turns(t).map(([role, text]) => [role, text])).toEqual([['user', 'I use fish as my shell'], ['assistant', 'Fish, noted.']]);
  });

  it('Gemini CLI session: user and gemini messages, info and empty tool-call messages left out', async () => {
    const t = await read('gemini-session.json');
    expect(t.format).toBe('gemini');
    expect(t.sessionId).toBe('92f625c6-a764-48e3-b922-3766d41f9c4c');
    expect(turns(t)).toEqual([
      ['user', 'I am allergic to peanuts', '2026-06-13T10:00:10.000Z'],
      ['assistant', 'Understood, I will keep that in mind.', '2026-06-13T10:00:15.000Z'],
      ['user', 'Our team standup is at 9:30', '2026-06-14T09:00:00.000Z'],
    ]);
  });

  it('OpenClaw session: message lines, tool results and thinking left out', async () => {
    const t = await read('openclaw-session.jsonl');
    expect(t.format).toBe('openclaw');
    expect(t.sessionId).toBe('08ef1c2d-3e4f-4a5b-9c6d-7e8f9a0b1c2d');
    expect(turns(t)).toEqual([
      ['user', 'I moved to Braga last month', '2026-06-15T20:00:05.000Z'],
      ['assistant', 'Braga, noted.', '2026-06-15T20:00:09.000Z'],
      ['user', 'My daughter starts school in September', '2026-06-16T07:45:00.000Z'],
    ]);
    // OpenClaw's own prompts (a /new session's start-up, a heartbeat) and the heartbeat's answer are not the person's.
    expect(t.turns.map((turn) => turn.text).join('\n')).not.toMatch(/Session Startup|HEARTBEAT/);
  });

  it('Cursor markdown export: **User** and **Cursor** are two speakers, dated at the export', async () => {
    const t = await read('cursor-export.md');
    expect(t.format).toBe('cursor-markdown');
    expect(t.startedAt?.toISOString()).toBe('2026-06-17T13:32:05.000Z');
    expect(turns(t).map(([role]) => role)).toEqual(['user', 'assistant', 'user']);
    expect(t.turns[0]!.text).toBe('We use pnpm workspaces in this repo');
    expect(t.turns[1]!.text).toBe("Understood. I'll use `pnpm` commands from now on:\n\n```bash\npnpm install\n```");
    expect(t.turns[2]!.text).toBe('My editor font is Berkeley Mono');
    expect(t.turns.every((turn) => turn.at?.toISOString() === '2026-06-17T13:32:05.000Z')).toBe(true);
  });

  it("Cursor's SQLite store: composers of both layouts and old workspace tabs, oldest first, without writing the file", async () => {
    const before = await readFile(`${FIXTURES}cursor-state.vscdb`);
    const t = await read('cursor-state.vscdb');
    expect(t.format).toBe('cursor');
    expect(turns(t)).toEqual([
      ['user', 'I prefer vim keybindings', new Date(1_780_000_000_000).toISOString()],
      ['assistant', 'Vim mode it is.', new Date(1_780_000_000_000).toISOString()],
      ['user', 'I prefer light themes', new Date(1_781_000_000_000).toISOString()],
      ['assistant', 'Light theme it is.', new Date(1_781_000_000_000).toISOString()],
      ['user', 'I prefer small pull requests', '2026-06-22T10:00:00.000Z'],
      ['assistant', 'Small pull requests, noted.', '2026-06-22T10:00:09.000Z'],
      ['user', 'I prefer reviewing code in the morning', '2026-06-23T08:30:00.000Z'],
    ]);
    expect(Buffer.compare(await readFile(`${FIXTURES}cursor-state.vscdb`), before)).toBe(0);
  });

  it("Cursor's SQLite store in WAL mode: chats still in state.vscdb-wal are read, a torn WAL tail is not, neither file is written", async () => {
    const db = `${FIXTURES}cursor-wal/state.vscdb`;
    const [dbBytes, walBytes] = await Promise.all([readFile(db), readFile(`${db}-wal`)]);
    const texts = (t: Transcript): string[] => t.turns.map((turn) => turn.text);
    // The main file alone holds the checkpointed chat; the WAL beside it holds the newer one.
    expect(texts(await readTranscript(dbBytes))).toEqual(['I prefer light themes', 'Light theme it is.']);
    const both = await readTranscript(dbBytes, db);
    expect(both.format).toBe('cursor');
    expect(texts(both)).toEqual(['I prefer light themes', 'Light theme it is.', 'My standup is at 9:30', 'Noted, 9:30.']);
    expect(both.turns[2]!.at?.toISOString()).toBe(new Date(1_782_000_000_000).toISOString());
    // A WAL whose last frame is torn (a crash mid-write) has no complete commit past the checkpoint.
    const { applyWal } = await import('../../src/extract/formats/sqlite-wal.js');
    expect(applyWal(dbBytes, walBytes.subarray(0, walBytes.length - 100))).toBe(dbBytes);
    expect(Buffer.compare(await readFile(db), dbBytes)).toBe(0);
    expect(Buffer.compare(await readFile(`${db}-wal`), walBytes)).toBe(0);
  });

  it("Aider's chat history: #### lines are the person's, aider's > lines left out, turns at their session's start", async () => {
    const t = await read('aider.chat.history.md');
    expect(t.format).toBe('aider');
    expect(turns(t).map(([role, text]) => [role, text.split('\n')[0]])).toEqual([
      ['user', 'We target Python 3.12 in this project'],
      ['assistant', "Noted. I'll write code for Python 3.12."],
      ['user', 'My cat is called Miso'],
      ['assistant', "That's a lovely name."],
      ['user', 'I prefer tabs over spaces'],
      ['assistant', 'Tabs it is.'],
      ['user', 'Rename the helper'],
      ['assistant', 'Renamed, with an alias.'],
    ]);
    // aider echoes a --message command line as one "> " entry whose later lines are unprefixed: its own output.
    expect(t.turns[6]!.text).toBe('Rename the helper\n\nKeep the old name as an alias');
    expect(t.turns[2]!.text).toBe('My cat is called Miso\nand she is three');
    expect(t.turns[1]!.text).not.toContain('Applied edit');
    // Aider writes local time without a zone.
    expect(t.turns[0]!.at?.getTime()).toBe(new Date('2026-06-18T09:12:44').getTime());
    expect(t.turns[4]!.at?.getTime()).toBe(new Date('2026-06-19T18:00:02').getTime());
  });

  it('Continue session: history messages, the workspace folder as the session folder', async () => {
    const t = await read('continue-session.json');
    expect(t.format).toBe('continue');
    expect(t.cwd).toBe('/home/rui/shop');
    expect(turns(t)).toEqual([
      ['user', 'Our database is Postgres 16', undefined],
      ['assistant', 'Great, Postgres 16 it is.', undefined],
      ['user', 'I work from Lisbon', undefined],
    ]);
  });

  it('OpenAI-style messages: system and tool messages left out', async () => {
    const t = await read('openai-messages.json');
    expect(t.format).toBe('openai');
    expect(turns(t)).toEqual([
      ['user', 'I run 10 km every Sunday', '2026-06-20T07:00:00.000Z'],
      ['assistant', 'That is a good habit.', '2026-06-20T07:00:03.000Z'],
      ['user', 'My bike is a Brompton', '2026-06-21T08:00:00.000Z'],
    ]);
  });

  it('content in no known format is an error naming the file, never zero turns', async () => {
    await expect(read('unknown.txt', 'unknown.txt')).rejects.toThrow(UnknownTranscriptError);
    await expect(read('unknown.json', 'unknown.json')).rejects.toThrow(/unknown\.json is in no transcript format vaultkeeper reads/);
    // A SQLite file that is not Cursor's.
    const { default: initSqlJs } = await import('sql.js');
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    db.exec('CREATE TABLE notes (body TEXT)');
    const other = (db as unknown as { export(): Uint8Array }).export();
    await expect(readTranscript(other, 'other.db')).rejects.toThrow(UnknownTranscriptError);
  });
});
