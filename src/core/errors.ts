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

/**
 * A system or git failure that reached the edge untyped, as one line naming the cause and the fix (issue 30):
 * a read-only or full disk, a permission, a damaged git object, a YAML alias bomb. Undefined when the cause is
 * not one of these (then it is reported as unexpected).
 */
export function explainError(error: unknown): VaultkeeperError | undefined {
  if (error instanceof VaultkeeperError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = (error as NodeJS.ErrnoException | undefined)?.path;
  const at = typeof where === 'string' ? ` (${where})` : '';
  const message = errorMessage(error);
  const make = (c: string, m: string, hint: string): VaultkeeperError => new VaultkeeperError(c, m, { hint, cause: error });
  if (code === 'EROFS' || /Read-only file system/i.test(message)) {
    return make('VK_READ_ONLY', `the vault's file system is read-only${at}: nothing was written`, 'remount it read-write (or copy the vault somewhere writable), then run the command again');
  }
  if (code === 'ENOSPC' || code === 'EDQUOT' || /No space left on device|Disk quota exceeded/i.test(message)) {
    return make('VK_DISK_FULL', `the disk is full${at}: the command stopped before it finished`, 'free some space, run `vaultkeeper doctor`, then run the command again');
  }
  if (code === 'EACCES' || code === 'EPERM' || /Permission denied/i.test(message)) {
    return make('VK_PERMISSION', `permission denied${at || ` (${message.split('\n')[0]})`}`, 'give your user write access to the vault (e.g. `chown -R "$USER" <vault>`), then run the command again');
  }
  if (code === 'EIO') return make('VK_IO', `the disk reported an I/O error${at}`, 'check the disk (dmesg, fsck), then run `vaultkeeper doctor`');
  if (/object file .* is empty|loose object .* is corrupt|bad object|unable to read [0-9a-f]{7,}|does not point to a valid object|invalid sha1 pointer|not a valid object name|bad default revision|index file corrupt|bad signature 0x|fatal: not a git repository|broken link from|object corrupt or missing|packfile .* cannot be accessed|inflate:/i.test(message)) {
    return make('VK_GIT_DAMAGED', `the vault's git repository is damaged: ${message.split('\n').find((l) => /error|fatal/i.test(l))?.replace(/^(error|fatal):\s*/i, '') ?? message.split('\n')[0]}`, 'run `vaultkeeper doctor --fix`: it repairs what it can without losing a line, or says what to run');
  }
  if (/Excessive alias count|resource exhaustion/i.test(message)) {
    return make('VK_YAML_ALIASES', 'a YAML file (the config, or a page\'s frontmatter) expands aliases past the safe limit (an alias bomb); it was not read', 'remove the `*alias` references from it (run `vaultkeeper doctor` to see which file), then run the command again');
  }
  return undefined;
}
