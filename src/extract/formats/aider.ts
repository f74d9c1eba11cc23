/**
 * Aider's chat history (.aider.chat.history.md in the project): each session opens with
 * "# aider chat started at YYYY-MM-DD HH:MM:SS"; the person's messages are lines prefixed "#### ",
 * the model's replies are the plain text after them, and "> " lines are aider's own output (commands,
 * edits applied, token reports), left out. Aider prefixes only the first line of its own output with "> " and
 * ends each entry with a Markdown line break (two spaces): a `--message` echoed at start runs on unprefixed
 * until that break (seen in public histories of aider 0.86), and is left out too. Turns take their session's
 * start as their time.
 */
import { pushTurn, type FormatReader, type Role, type Transcript, type Turn } from './turns.js';

const STARTED_RE = /^# aider chat started at (\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})\s*$/;
const USER_RE = /^#### ?(.*)$/;

export const aider: FormatReader = {
  format: 'aider',
  detect: (probe) => probe.json === undefined && probe.text.split(/\r?\n/, 200).some((line) => STARTED_RE.test(line)),
  read: (probe) => readAider(probe.text),
};

export function readAider(content: string): Transcript {
  const turns: Turn[] = [];
  let startedAt: Date | undefined;
  let at: Date | undefined;
  let current: { role: Role; lines: string[] } | null = null;
  let fence = false;
  /** Inside an entry of aider's own output that began with "> " and has not ended with its line break. */
  let echo = false;
  /** Between a session's start line and its first turn, where aider echoes its command line. */
  let preamble = false;
  const flush = (): void => {
    if (current !== null) pushTurn(turns, current.role, current.lines.join('\n'), at, false);
    current = null;
  };
  for (const line of content.split(/\r?\n/)) {
    if (echo) {
      if (STARTED_RE.test(line) || USER_RE.test(line)) echo = false;
      else {
        if (line.endsWith('  ')) echo = false;
        continue;
      }
    }
    if (!fence) {
      const started = STARTED_RE.exec(line);
      if (started !== null) {
        flush();
        // Aider writes the machine's local time without a zone.
        at = new Date(`${started[1]}T${started[2]}`);
        if (Number.isNaN(at.getTime())) at = undefined;
        startedAt ??= at;
        preamble = true;
        continue;
      }
      const user = USER_RE.exec(line);
      if (user !== null) {
        preamble = false;
        if (current?.role !== 'user') {
          flush();
          current = { role: 'user', lines: [] };
        }
        current.lines.push(user[1]!.trimEnd());
        continue;
      }
      if (line.startsWith('>')) {
        if (current?.role === 'user') flush();
        // Only in the preamble: a model's own blockquote later on must not swallow the rest of its reply.
        echo = preamble && current === null && line.startsWith('> ') && !line.endsWith('  ');
        continue;
      }
    }
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (current === null || current.role === 'user') {
      if (line.trim() === '' && current === null) continue;
      preamble = false;
      flush();
      current = { role: 'assistant', lines: [] };
    }
    current.lines.push(line);
  }
  flush();
  return { format: 'aider', turns, startedAt, skippedLines: 0 };
}
