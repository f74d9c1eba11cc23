/** Output helpers for the CLI: one JSON document with --json, plain lines otherwise. */
import { writeErr, writeOut } from './stdio.js';

export function printJson(value: unknown): void {
  writeOut(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(line = ''): void {
  writeOut(`${line}\n`);
}

/** Progress and notes go to stderr so stdout stays clean for pipes. */
export function note(line: string): void {
  writeErr(`${line}\n`);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
