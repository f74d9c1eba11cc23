/** What the scanners report: a secret's place in the text and what kind it is (the marker's word). */
export interface SecretFinding {
  /** What it is, in a few plain words: `password`, `pin`, `card number`, `github token`, … */
  kind: string;
  start: number;
  end: number;
}

/** The marker that takes a secret's place in a stored fact. */
export function secretMarker(kind: string): string {
  return `[redacted: ${kind}]`;
}

/** Findings in text order without overlaps: of two that overlap, the one that starts first (then the longer) stays. */
export function disjoint(findings: readonly SecretFinding[]): SecretFinding[] {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretFinding[] = [];
  for (const f of sorted) {
    const last = out.at(-1);
    if (last !== undefined && f.start < last.end) {
      last.end = Math.max(last.end, f.end);
      continue;
    }
    out.push({ ...f });
  }
  return out;
}
