// Runs the CLI in-process and captures what it prints.
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { useBuilt } from '../../src/util/worker-code.js';

/**
 * Node arguments that start the CLI in a process of its own (for tests that signal or kill it): the
 * built bin/taintlens.js when dist/ is current (as CI and npx run it), else the sources through tsx.
 */
export function cliProcessArgs(args: string[]): string[] {
  if (useBuilt()) return ['bin/taintlens.js', ...args];
  return [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    "const { main } = await import('./src/cli/main.ts'); process.exitCode = await main(process.argv.slice(1));",
    ...args,
  ];
}

export async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const outSpy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  try {
    const code = await main(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    outSpy.mockRestore();
    errSpy.mockRestore();
    process.exitCode = undefined;
  }
}
