import { describe, expect, it } from 'vitest';
import { ibanValid } from '../../src/secrets/iban.js';
import { luhnValid } from '../../src/secrets/luhn.js';
import { applySecretsPolicy, SecretRefusedError } from '../../src/secrets/policy.js';
import { redactFindings, scanSecrets } from '../../src/secrets/scan.js';

async function scrub(text: string): Promise<string> {
  return redactFindings(text, await scanSecrets(text)).text;
}

describe('the secrets scan', () => {
  it.each([
    ['my PIN is 4471', 'my PIN is [redacted: pin]'],
    ['the door code is 4471#', 'the door code is [redacted: access code]'],
    ['wifi password: Tr0ub4dor&3', 'wifi password: [redacted: password]'],
    ['the password is hunter2.', 'the password is [redacted: password].'],
    ['card 4111 1111 1111 1111 expires soon', 'card [redacted: card number] expires soon'],
    ['IBAN DE89 3704 0044 0532 0130 00 for rent', 'IBAN [redacted: iban] for rent'],
    ['key AKIAIOSFODNN7EXAMPLE in prod', 'key [redacted: aws key] in prod'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok', 'token [redacted: github token] ok'],
    ['db at postgres://app:s3cretpass@db.internal/app', 'db at [redacted: password]'],
  ])('redacts %s', async (text, want) => {
    expect(await scrub(text)).toBe(want);
  });

  it.each([
    'I changed my password yesterday',
    'my password is strong',
    'the alarm goes off at 7',
    'upgraded to version 1.2.3 on 2026-06-09',
    'order 1234567812345678 shipped',
    'call me at +1 415 555 0132',
    'the PIN pad was broken',
    'fact id f-7k2m9q0a1b and commit 3cbab76',
  ])('keeps %s', async (text) => {
    expect(await scrub(text)).toBe(text);
  });

  it('checks card numbers and IBANs by their checksums', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(ibanValid('DE88 3704 0044 0532 0130 00')).toBe(false);
  });

  it('refuses under capture.secrets: refuse, naming the kind and never the secret', async () => {
    const error = await applySecretsPolicy(['fine', 'my PIN is 4471'], 'refuse').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretRefusedError);
    expect((error as Error).message).toBe('fact 2 holds a secret (pin); nothing was stored');
  });

  it('a marker is not scanned as a secret again', async () => {
    const once = await scrub('my password is hunter2!');
    expect(await scrub(once)).toBe(once);
  });
});
