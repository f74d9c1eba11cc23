/** Output helpers for the CLI: one JSON document with --json, plain lines otherwise. */

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Progress and notes go to stderr so stdout stays clean for pipes. */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
