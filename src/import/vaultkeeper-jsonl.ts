/**
 * vaultkeeper's own export (`vaultkeeper export --format jsonl`): one fact a line with its id, date, time,
 * category, text, tags and source. Date, time and source are kept as they are, so a fact imported into a new
 * vault gets back the id it had (ids hash date, time, source and text; DESIGN §3).
 */
import { isValidDate } from '../core/clock.js';
import { FACT_ID_RE } from '../logs/ids.js';
import { emptySource, isRecord, type ImportSource } from './source.js';

function records(content: string): unknown[] | null {
  const out: unknown[] = [];
  for (const line of content.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      return null;
    }
  }
  return out;
}

const isExported = (value: unknown): value is Record<string, unknown> & { id: string; text: string; date: string } =>
  isRecord(value) && typeof value.id === 'string' && FACT_ID_RE.test(value.id) && typeof value.text === 'string' && typeof value.date === 'string';

export function isVaultkeeperExport(content: string): boolean {
  const list = records(content);
  return list !== null && list.length > 0 && list.every(isExported);
}

export function readVaultkeeperExport(content: string): ImportSource {
  const out = emptySource('vaultkeeper');
  for (const record of records(content) ?? []) {
    if (!isExported(record) || !isValidDate(record.date)) {
      out.unreadable++;
      continue;
    }
    const tags = Array.isArray(record.tags) ? record.tags.filter((t): t is string => typeof t === 'string') : [];
    out.facts.push({
      text: record.text,
      category: typeof record.category === 'string' ? record.category : 'fact',
      tags,
      at: null,
      date: record.date,
      ...(typeof record.time === 'string' && record.time !== '' ? { time: record.time } : {}),
      source: typeof record.source === 'string' && record.source !== '' ? record.source : 'import',
    });
  }
  return out;
}
