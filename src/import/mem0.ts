/**
 * A mem0 export: what `get_all` returns (`{results: [...]}`, or the bare list), each memory
 * `{id, memory, created_at, updated_at, metadata, categories, user_id, agent_id}`. The category comes from
 * `metadata.category` or `metadata.type`, else the first of `categories`; every category is also a tag.
 */
import { cleanTags } from '../extract/extracted.js';
import { emptySource, isRecord, sourceLabel, timeOf, type ImportSource } from './source.js';

function memoriesOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (isRecord(value)) {
    for (const key of ['results', 'memories']) if (Array.isArray(value[key])) return value[key] as unknown[];
  }
  return null;
}

export function isMem0Export(value: unknown): boolean {
  const list = memoriesOf(value);
  return list !== null && list.length > 0 && list.every((m) => isRecord(m) && typeof m.memory === 'string');
}

export function readMem0(value: unknown): ImportSource {
  const out = emptySource('mem0');
  for (const memory of memoriesOf(value) ?? []) {
    if (!isRecord(memory) || typeof memory.memory !== 'string' || memory.memory.trim() === '') {
      out.unreadable++;
      continue;
    }
    const metadata = isRecord(memory.metadata) ? memory.metadata : {};
    const categories = Array.isArray(memory.categories) ? memory.categories.filter((c): c is string => typeof c === 'string') : [];
    const named = [metadata.category, metadata.type].find((v): v is string => typeof v === 'string');
    const category = named ?? categories[0] ?? 'fact';
    const tags = cleanTags([...categories, ...(Array.isArray(metadata.tags) ? metadata.tags : [])]);
    const who = [memory.user_id, memory.agent_id, memory.run_id].find((v) => typeof v === 'string');
    out.facts.push({ text: memory.memory, category, tags, at: timeOf(memory.created_at) ?? timeOf(memory.updated_at) ?? null, source: sourceLabel('mem0', who) });
  }
  return out;
}
