/** Adds `value` to the list `map` holds at `key`, in place: a copy per addition made a long list quadratic (issue 31). */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
