/** The ISO 13616 check of an IBAN: letters as numbers, the country and check digits moved to the end, mod 97 = 1. */
export function ibanValid(candidate: string): boolean {
  const iban = candidate.replace(/[\s-]/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  // Digit by digit, so the number never outgrows a double.
  let rest = 0;
  for (const ch of moved) {
    const value = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1;
}
