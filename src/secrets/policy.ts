/**
 * `capture.secrets` applied to a batch of facts before anything is written: `redact` replaces each secret by
 * its marker, `refuse` stops the batch with one line naming the fact and the kind (never the secret).
 */
import { VaultkeeperError } from '../core/errors.js';
import { redactFindings, scanSecrets } from './scan.js';

export type SecretsPolicy = 'redact' | 'refuse';

export interface RedactedFact {
  /** The fact's place in the batch, from 0. */
  index: number;
  /** What was replaced, e.g. ["password"]. */
  kinds: string[];
}

export class SecretRefusedError extends VaultkeeperError {
  readonly index: number;
  readonly kinds: string[];
  constructor(index: number, count: number, kinds: string[]) {
    const which = count > 1 ? `fact ${index + 1}` : 'the fact';
    super('VK_SECRET', `${which} holds a secret (${[...new Set(kinds)].join(', ')}); nothing was stored`, {
      hint: 'leave the secret out (a password manager is the place for it), or set capture.secrets: redact to store the fact with a marker',
    });
    this.index = index;
    this.kinds = kinds;
  }
}

/** The texts to write, and which facts lost a secret; throws SecretRefusedError under `refuse`. */
export async function applySecretsPolicy(texts: readonly string[], policy: SecretsPolicy): Promise<{ texts: string[]; redacted: RedactedFact[] }> {
  const out: string[] = [];
  const redacted: RedactedFact[] = [];
  for (const [index, text] of texts.entries()) {
    const findings = await scanSecrets(text);
    if (findings.length === 0) {
      out.push(text);
      continue;
    }
    if (policy === 'refuse') throw new SecretRefusedError(index, texts.length, findings.map((f) => f.kind));
    const clean = redactFindings(text, findings);
    out.push(clean.text);
    redacted.push({ index, kinds: clean.kinds });
  }
  return { texts: out, redacted };
}

/**
 * A fact's tags under the same policy (a token pasted as a tag, `#door-code-4471`): each is scanned as written and
 * with its `-`, `_` and `/` read as spaces, so a cue-and-value rule sees its words. A marker cannot be a tag, so
 * under `redact` a tag holding a secret is left out; under `refuse` the fact is refused.
 */
export async function applyTagsPolicy(tags: readonly string[], policy: SecretsPolicy): Promise<{ tags: string[]; kinds: string[] }> {
  const kept: string[] = [];
  const kinds: string[] = [];
  for (const tag of tags) {
    const bare = tag.replace(/^#/, '');
    const findings = [...(await scanSecrets(bare)), ...(await scanSecrets(bare.replace(/[-_/]+/g, ' ')))];
    if (findings.length === 0) {
      kept.push(tag);
      continue;
    }
    if (policy === 'refuse') throw new SecretRefusedError(0, 1, findings.map((f) => f.kind));
    kinds.push(...findings.map((f) => f.kind));
  }
  return { tags: kept, kinds: [...new Set(kinds)] };
}
