/**
 * The two export formats: JSON lines (one fact a line, every field; what `vaultkeeper import` reads back) and
 * CSV (RFC 4180: quoted where needed, CRLF line ends; tags joined by spaces, citations as `path:line` joined by
 * spaces) for a spreadsheet or another tool.
 */
import type { ExportedFact } from './facts.js';

export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function formatFacts(facts: readonly ExportedFact[], format: ExportFormat): string {
  if (format === 'jsonl') return facts.map((fact) => `${JSON.stringify(fact)}\n`).join('');
  const header = ['id', 'date', 'time', 'category', 'text', 'tags', 'source', 'citations'];
  const rows = facts.map((f) => [f.id, f.date, f.time, f.category, f.text, f.tags.join(' '), f.source, f.citations.map((c) => `${c.path}:${c.line}`).join('; ')]);
  return [header, ...rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

function csvField(value: string): string {
  // A leading =, +, - or @ is left as it is: the text is the person's, and a spreadsheet's import dialog decides.
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
