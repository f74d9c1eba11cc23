/**
 * The core schema's plain scalars as the `yaml` package resolves them (the patterns and conversions of
 * yaml/dist/schema/core/), in its order: the first that matches wins, and text matching none is a string.
 * Timestamps are not among them (YAML 1.2 has none: `2026-06-09` stays text).
 */
export interface CoreScalar {
  name: string;
  pattern: RegExp;
  construct: (text: string) => unknown;
}

export const CORE_SCALARS: readonly CoreScalar[] = [
  { name: 'null', pattern: /^(?:~|[Nn]ull|NULL)?$/u, construct: () => null },
  { name: 'bool', pattern: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/u, construct: (text) => text[0] === 't' || text[0] === 'T' },
  { name: 'int-oct', pattern: /^0o[0-7]+$/u, construct: (text) => parseInt(text.substring(2), 8) },
  { name: 'int', pattern: /^[-+]?[0-9]+$/u, construct: (text) => parseInt(text, 10) },
  { name: 'int-hex', pattern: /^0x[0-9a-fA-F]+$/u, construct: (text) => parseInt(text.substring(2), 16) },
  {
    name: 'float-nan',
    pattern: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/u,
    construct: (text) => (text.slice(-3).toLowerCase() === 'nan' ? NaN : text[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY),
  },
  { name: 'float-exp', pattern: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/u, construct: parseFloat },
  { name: 'float', pattern: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/u, construct: parseFloat },
];
