/**
 * Cursor's "Export Chat" markdown: a title, "_Exported on 6/9/2026 at 14:32:05 GMT+1 from Cursor (1.2.4)_",
 * then the messages between "---" rules, each opened by a bold speaker line: "**User**" or "**Cursor**".
 * The export records no time per message: turns take the export's time.
 */
import { pushTurn, type FormatReader, type Role, type Transcript, type Turn } from './turns.js';

const EXPORTED_RE = /^_Exported on (\d{1,2})\/(\d{1,2})\/(\d{4}) at (\d{1,2}):(\d{2}):(\d{2})(?:\s*([AP]M))?\s*(?:(GMT|UTC)([+-]\d{1,2})?(?::?(\d{2}))?)?[^_]*from Cursor[^_]*_\s*$/i;
const SPEAKER_RE = /^\*\*(User|Cursor)\*\*\s*$/;

export const cursorMarkdown: FormatReader = {
  format: 'cursor-markdown',
  detect: (probe) => {
    if (probe.json !== undefined) return false;
    const head = probe.text.split(/\r?\n/, 12);
    return head.some((line) => /^_Exported on .* from Cursor/.test(line)) || (probe.text.split(/\r?\n/).some((l) => l === '**User**') && probe.text.split(/\r?\n/).some((l) => l === '**Cursor**'));
  },
  read: (probe) => readCursorMarkdown(probe.text),
};

export function readCursorMarkdown(content: string): Transcript {
  const lines = content.split(/\r?\n/);
  let startedAt: Date | undefined;
  for (const line of lines.slice(0, 12)) {
    const match = EXPORTED_RE.exec(line.trim());
    if (match !== null) startedAt = exportTime(match);
  }
  const turns: Turn[] = [];
  let current: { role: Role; lines: string[] } | null = null;
  let fence = false;
  const flush = (): void => {
    if (current === null) return;
    // The "---" that separates two messages belongs to neither.
    const body = current.lines.join('\n').replace(/\n-{3,}\s*$/, '');
    pushTurn(turns, current.role, body, startedAt, false);
    current = null;
  };
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const speaker = fence ? null : SPEAKER_RE.exec(line.trim());
    if (speaker !== null) {
      flush();
      current = { role: speaker[1] === 'User' ? 'user' : 'assistant', lines: [] };
      continue;
    }
    current?.lines.push(line);
  }
  flush();
  return { format: 'cursor-markdown', turns, startedAt, skippedLines: 0 };
}

/** The export's time: month/day/year as Cursor writes it (US order), in the zone it names, else local. */
function exportTime(match: RegExpExecArray): Date | undefined {
  const [, month, day, year, h, m, s, ampm, utc, zoneHours, zoneMinutes] = match;
  let hour = Number(h);
  if (ampm !== undefined) hour = (hour % 12) + (ampm.toUpperCase() === 'PM' ? 12 : 0);
  const pad = (n: number | string): string => String(n).padStart(2, '0');
  const local = `${year}-${pad(month!)}-${pad(day!)}T${pad(hour)}:${m}:${s}`;
  let zone = utc === undefined ? '' : 'Z';
  if (zoneHours !== undefined) {
    const sign = zoneHours.startsWith('-') ? '-' : '+';
    zone = `${sign}${pad(zoneHours.replace(/^[+-]/, ''))}:${zoneMinutes ?? '00'}`;
  }
  const date = new Date(`${local}${zone}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
