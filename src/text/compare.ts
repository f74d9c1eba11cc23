/**
 * Orders strings by UTF-16 code unit: the same order on every machine. `localeCompare` follows the machine's
 * locale (under LANG=da_DK "aa" sorts after "z"), so a tie it breaks could come out differently on two
 * machines, and its first call starts ICU's collator, ~8 ms of a CLI search (docs/benchmarks.md).
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

let english: Intl.Collator | undefined;

/**
 * Orders names and paths as people read them (case and accents second), by one fixed locale: `localeCompare`
 * without one follows LANG, so two machines would write a dream's lists in different orders (under da_DK
 * "Aase" sorts after "Zoe"). en-US is what the machines these pages were first written on used. The collator
 * is made on first use, so a module that imports this file but never sorts text pays nothing.
 */
export function byText(a: string, b: string): number {
  english ??= new Intl.Collator('en-US');
  return english.compare(a, b);
}
