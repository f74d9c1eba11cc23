/**
 * Typed errors with a stable code and a message that says what to do next.
 * They are reported in one place, at the CLI edge (or as a tool error in MCP).
 */
export class VaultkeeperError extends Error {
  readonly code: string;
  /** The next step for the person or agent reading the error. */
  readonly hint: string | undefined;
  /** 1 for runtime failures, 2 for usage errors (DESIGN §10). */
  readonly exitCode: 1 | 2;

  constructor(code: string, message: string, options: { hint?: string; exitCode?: 1 | 2; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VaultkeeperError';
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Bad input on the command line or through a tool: exit 2. */
export class UsageError extends VaultkeeperError {
  constructor(message: string, hint?: string) {
    super('VK_USAGE', message, { exitCode: 2, ...(hint === undefined ? {} : { hint }) });
    this.name = 'UsageError';
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
