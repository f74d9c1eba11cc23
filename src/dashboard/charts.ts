/**
 * Mermaid chart text for the dashboard (Obsidian renders ```mermaid blocks natively). Pure: data in,
 * chart source out. Only the chart kinds of mermaid 10.3+ (xychart-beta, pie), so an older Obsidian
 * renders them too. An empty series becomes a sentence instead of a chart that would not parse.
 */

export interface Series {
  title: string;
  /** Axis labels, e.g. "05-14". */
  labels: string[];
  values: number[];
  /** Y axis name. */
  unit: string;
  kind: 'bar' | 'line';
}

/** A label or title inside double quotes: mermaid has no escape for `"`, so it is replaced. */
function quoted(text: string): string {
  return `"${text.replace(/"/g, "'").replace(/[\r\n]+/g, ' ')}"`;
}

export function xyChart(series: Series): string | null {
  if (series.labels.length === 0) return null;
  const max = Math.max(1, ...series.values);
  return [
    'xychart-beta',
    `  title ${quoted(series.title)}`,
    `  x-axis [${series.labels.map(quoted).join(', ')}]`,
    `  y-axis ${quoted(series.unit)} 0 --> ${niceCeiling(max)}`,
    `  ${series.kind} [${series.values.map((v) => String(Math.round(v))).join(', ')}]`,
  ].join('\n');
}

/** A pie of named counts; zero slices are left out, and all zeros is no chart. */
export function pieChart(title: string, slices: ReadonlyArray<readonly [string, number]>): string | null {
  const shown = slices.filter(([, n]) => n > 0);
  if (shown.length === 0) return null;
  return ['pie showData', `  title ${title.replace(/[\r\n]+/g, ' ')}`, ...shown.map(([label, n]) => `  ${quoted(label)} : ${n}`)].join('\n');
}

/** The axis top: the next 1, 2 or 5 × 10^n at or above the largest value, so ticks read well. */
function niceCeiling(max: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

/** A fenced block for the page. */
export function mermaidBlock(chart: string): string {
  return `\`\`\`mermaid\n${chart}\n\`\`\``;
}
