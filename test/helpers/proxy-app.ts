// Runs a bundled MPI proxy application (native/wasm/, native/build-proxy-apps.sh) through the CLI
// and reads values from its own verification output.
import { join } from 'node:path';
import { expect } from 'vitest';
import { cli } from './cli.js';

export const proxyApp = (name: string) => join(import.meta.dirname, '..', '..', 'native', 'wasm', `${name}.wasm`);

/** `run` of `file` on `ranks` ranks with argv `argv`; checks it succeeded and returns what rank 0 printed (and the tables). */
export async function runApp(file: string, ranks: number, argv: string[], extra: string[] = []): Promise<string> {
  const { code, stdout, stderr } = await cli([
    'run',
    file,
    ...(ranks > 1 ? ['--ranks', String(ranks)] : []),
    ...extra,
    '--timeout',
    '120',
    '--',
    ...argv,
  ]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toMatch(/exit code( \(rank 0\))?: 0/);
  return stdout;
}

/** The first capture group of `pattern` in `stdout` (fails the test when it is missing). */
export function outputValue(stdout: string, pattern: RegExp): string {
  const found = stdout.match(pattern);
  expect(found, `${pattern} in the output`).not.toBeNull();
  return found![1]!;
}
