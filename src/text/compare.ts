/**
 * Orders strings by UTF-16 code unit: the same order on every machine. `localeCompare` follows the machine's
 * locale (under LANG=da_DK "aa" sorts after "z"), so a tie it breaks could come out differently on two
 * machines, and its first call starts ICU's collator, ~8 ms of a CLI search (docs/benchmarks.md).
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
