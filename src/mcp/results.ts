/**
 * Tool results: compact text with the data as structuredContent, failures as tool errors (`isError: true`) whose text names the next call.
 * For an agent the error text is the whole interface.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { VaultkeeperError, errorMessage, explainError } from '../core/errors.js';

/** By error code, a text that fits an agent better than the library's CLI-flavoured hint. */
export type Rewrites = Partial<Record<string, (error: VaultkeeperError) => string>>;

/** An answer: text for the model (and more text blocks, e.g. a diff), the full data as structuredContent. */
export function answer(text: string, value: object, ...more: string[]): CallToolResult {
  return { content: [{ type: 'text', text }, ...more.map((more) => ({ type: 'text' as const, text: more }))], structuredContent: value as Record<string, unknown> };
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The text of a tool error: what went wrong, then what to do next. */
export function errorText(error: unknown, rewrites: Rewrites = {}): string {
  error = explainError(error) ?? error;
  if (error instanceof VaultkeeperError) {
    const rewrite = rewrites[error.code];
    if (rewrite !== undefined) return rewrite(error);
    return error.hint === undefined ? error.message : `${error.message}; ${error.hint}`;
  }
  return `unexpected error: ${errorMessage(error).split('\n')[0]}; the server's log (stderr) has the details. Try the call once more; if it fails again, tell the person`;
}

/** Cuts a long text at a line boundary, with a note saying how much is left out and where to see it all. */
export function capText(text: string, cap: number, whereAll: string): string {
  if (text.length <= cap) return text;
  const cut = text.lastIndexOf('\n', cap);
  const kept = text.slice(0, cut > 0 ? cut + 1 : cap);
  return `${kept}\n[cut: showing ${kept.length} of ${text.length} characters; ${whereAll}]\n`;
}
