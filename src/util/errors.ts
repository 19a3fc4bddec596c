// User-facing failures: a one-line message naming the file and the problem, and an exit code.
// Anything else that escapes to the CLI is a bug and is reported as such.

export class UserError extends Error {
  /** The file the message names first (set by fileError), so context can be added after it. */
  file?: string;

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/** Prefixes a message with the file it concerns: `kernel.wasm: truncated module`. */
export function fileError(file: string, problem: string, exitCode = 1): UserError {
  const error = new UserError(`${file}: ${problem}`, exitCode);
  error.file = file;
  return error;
}

/**
 * Says where a failure happened, right after the file it names: `k.wasm: at n=4: trap in run: ...`.
 * Other errors pass through unchanged.
 */
export function withContext(error: unknown, context: string): unknown {
  if (!(error instanceof UserError)) return error;
  const prefix = error.file !== undefined ? `${error.file}: ` : '';
  const rest = prefix && error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  const located = new UserError(`${prefix}${context}: ${rest}`, error.exitCode);
  located.file = error.file;
  return located;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? String(error);
  return String(error);
}
