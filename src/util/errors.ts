// User-facing failures: a one-line message naming the file and the problem, and an exit code.
// Anything else that escapes to the CLI is a bug and is reported as such.

export class UserError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'UserError';
  }
}

/** Prefixes a message with the file it concerns: `kernel.wasm: truncated module`. */
export function fileError(file: string, problem: string, exitCode = 1): UserError {
  return new UserError(`${file}: ${problem}`, exitCode);
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? String(error);
  return String(error);
}
