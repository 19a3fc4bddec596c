// Malformed modules (truncated, corrupted sections, huge declared sizes and counts) through every
// command that reads a module: each ends with a non-zero code and one line naming the file, never an
// internal error, a crash or a hang.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { main } from '../../src/cli/main.js';
import { commands } from '../../src/cli/commands/index.js';
import { malformedVariants } from '../../src/fuzz/malformed.js';
import { wat } from '../helpers/wat.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-malformed-');

const kernel = wat(`(module (memory (export "memory") 1 4)
  (global $g (mut i32) (i32.const 0))
  (data (i32.const 16) "hello")
  (func $sum (export "run") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l (local.set $s (i32.add (local.get $s) (i32.load (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
    (global.set $g (local.get $s))
    (local.get $s)))`);
const fuzzModule = new Uint8Array(readFileSync(join(import.meta.dirname, 'corpus', 'ttf-1000000.wasm')));

/** Commands that take a module as their first argument, with what each needs besides it. */
function moduleCommands(): Array<[string, (file: string) => string[]]> {
  const program = new Command();
  for (const register of commands) register(program);
  const extra: Record<string, (file: string) => string[]> = {
    run: () => ['--args', '64', '--timeout', '10'],
    loops: () => ['--args', '64', '--timeout', '10'],
    instrument: (file) => ['--mode', 'loops', '-o', `${file}.out.wasm`],
    taint: () => ['--args', '64', '--timeout', '10'],
    measure: (file) => ['--vary', 'n=arg0:8,16', '-o', `${file}.jsonl`, '--timeout', '10'],
    analyze: (file) => [
      '--config',
      join(import.meta.dirname, '..', '..', 'examples', 'miniapp.quick.analysis.json'),
      '--out',
      `${file}.analysis`,
    ],
  };
  // Commands added later: give their required options some value, so the module is what fails.
  const required = (c: Command) => (file: string) =>
    c.options
      .filter((o) => o.mandatory)
      .flatMap((o) => [o.long!, /output/.test(o.long!) ? `${file}.out` : /mode/.test(o.long!) ? 'loops' : '1']);
  return program.commands
    .filter((c) => c.registeredArguments[0]?.name() === 'module')
    .map((c) => [c.name(), extra[c.name()] ?? required(c)]);
}

async function cli(args: string[]) {
  const err: string[] = [];
  const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  const outSpy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`hang: ${args.join(' ')}`)), 30_000);
    });
    const code = await Promise.race([main(args), hang]).finally(() => clearTimeout(timer));
    return { code, stderr: err.join('') };
  } finally {
    errSpy.mockRestore();
    outSpy.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

const inputs = [
  ...malformedVariants(kernel, 1).map((v) => ({ ...v, name: `kernel-${v.name}` })),
  ...malformedVariants(fuzzModule, 2).map((v) => ({ ...v, name: `ttf-${v.name}` })),
].filter((v) => !WebAssembly.validate(v.bytes as Uint8Array<ArrayBuffer>) || v.name.includes('memory-65536'));

describe.each(moduleCommands())('taintlens %s on malformed modules', (command, extra) => {
  test('every variant ends with one clear line naming the file', async () => {
    expect(inputs.length).toBeGreaterThan(40);
    for (const input of inputs) {
      const file = join(dir, `${input.name}.wasm`);
      writeFileSync(file, input.bytes);
      const { code, stderr } = await cli([command, file, ...extra(file)]);
      const context = `${command} ${input.name}: ${stderr}`;
      // A 4 GiB memory is valid: running it may work; instrumenting it must refuse clearly.
      if (input.name.includes('memory-65536') && code === 0) continue;
      expect(code, context).not.toBe(0);
      expect(stderr, context).not.toMatch(/internal error/);
      expect(stderr.trim().split('\n'), context).toHaveLength(1);
      expect(stderr, context).toContain(`${input.name}.wasm`);
    }
  }, 600_000);
});
