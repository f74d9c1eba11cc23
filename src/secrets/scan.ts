/**
 * The one scan of a fact for secrets before it is written (DESIGN §9): secretlint's recommended rules, the
 * key shapes the on-screen redaction knows (core/redact.ts), and personal secrets in plain words.
 */
import { keyShapes } from '../core/redact.js';
import { disjoint, secretMarker, type SecretFinding } from './finding.js';
import { personalSecrets } from './personal.js';
import { secretlintFindings } from './secretlint.js';

export type { SecretFinding } from './finding.js';

export async function scanSecrets(text: string): Promise<SecretFinding[]> {
  const found = [...personalSecrets(text), ...(await secretlintFindings(text))];
  for (const { kind, pattern } of keyShapes()) {
    for (const m of text.matchAll(pattern)) found.push({ kind, start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
  }
  // A marker already in the text (a fact redacted before, then copied) is not a secret.
  const markers = [...text.matchAll(/\[redacted(?::[^\]]*)?\]/gu)].map((m) => [m.index ?? 0, (m.index ?? 0) + m[0].length] as const);
  return disjoint(found.filter((f) => !markers.some(([start, end]) => f.start < end && f.end > start)));
}

/** `text` with each secret replaced by its marker, and the kinds replaced (in text order). */
export function redactFindings(text: string, findings: readonly SecretFinding[]): { text: string; kinds: string[] } {
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += text.slice(at, f.start) + secretMarker(f.kind);
    at = f.end;
  }
  return { text: out + text.slice(at), kinds: findings.map((f) => f.kind) };
}
