/**
 * Dataview's rule for bracketed inline fields, as its documentation and parser state it, written out
 * as a test oracle: from any `[` in a line, the key runs to the first `::` and may hold none of `[ ] ( )`;
 * the value runs to the `]` that closes the field, counting nested brackets and skipping any character
 * after a backslash. Keys and values are trimmed. A `[` that does not start a field is passed over.
 */
export interface DataviewField {
  key: string;
  value: string;
}

export function bracketedFields(line: string): DataviewField[] {
  const fields: DataviewField[] = [];
  let from = line.indexOf('[');
  while (from >= 0) {
    const field = fieldAt(line, from);
    if (field === null) {
      from = line.indexOf('[', from + 1);
      continue;
    }
    fields.push({ key: field.key, value: field.value });
    from = line.indexOf('[', field.end);
  }
  return fields;
}

function fieldAt(line: string, open: number): (DataviewField & { end: number }) | null {
  const separator = line.indexOf('::', open + 1);
  if (separator < 0) return null;
  const key = line.slice(open + 1, separator).trim();
  if (/[[\]()]/.test(key)) return null;
  let depth = 0;
  let escaped = false;
  for (let i = separator + 2; i < line.length; i++) {
    const char = line[i]!;
    if (char === '\\') {
      escaped = !escaped;
      continue;
    }
    if (escaped) {
      escaped = false;
      continue;
    }
    if (char === '[') depth++;
    else if (char === ']' && --depth < 0) return { key, value: line.slice(separator + 2, i).trim(), end: i + 1 };
  }
  return null;
}
