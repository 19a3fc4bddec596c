// Bad input ends with one line naming the file and the problem, and a non-zero exit code.
import { describe, expect, test } from 'vitest';
import { writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-errors-');
const file = (name: string, bytes: Uint8Array | string) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

const good = wat(`(module (memory (export "memory") 1)
  (func (export "run") (param $n i32) (result i32) (local $i i32)
    (loop $l (local.set $i (i32.add (local.get $i) (i32.const 1))) (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
    (local.get $i))
  (func (export "spin") (loop $l (br $l)))
  (func (export "boom") (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0)))
  (func (export "oob") (result i32) (i32.load (i32.mul (memory.size) (i32.const 65536)))))`);

describe.each(['run', 'loops'])('taintlens %s on bad input', (command) => {
  const cases: Array<[string, () => string[], RegExp]> = [
    ['not Wasm', () => [file('text.wasm', 'hello world, not wasm')], /text\.wasm: not a WebAssembly module/],
    [
      'truncated',
      () => [file('cut.wasm', good.subarray(0, good.length - 7))],
      /cut\.wasm: invalid module: truncated or corrupt/,
    ],
    ['empty', () => [file('empty.wasm', new Uint8Array())], /empty\.wasm: not a WebAssembly module/],
    ['missing file', () => [join(dir, 'absent.wasm')], /absent\.wasm: no such file/],
    ['missing export', () => [file('good.wasm', good), '--invoke', 'nope'], /good\.wasm: no exported function 'nope'/],
    [
      'wrong argument count',
      () => [file('good.wasm', good), '--args', '1,2'],
      /good\.wasm: run takes 1 argument\(s\) \(i32\), got 2/,
    ],
    [
      'non-numeric argument',
      () => [file('good.wasm', good), '--args', 'ten'],
      /good\.wasm: argument 1 of run must be i32, got 'ten'/,
    ],
    [
      'trap',
      () => [file('good.wasm', good), '--invoke', 'boom', '--args', '0'],
      /good\.wasm: trap in boom: divide by zero/,
    ],
    [
      'out-of-bounds access',
      () => [file('good.wasm', good), '--invoke', 'oob'],
      /good\.wasm: trap in oob: memory access out of bounds/,
    ],
  ];
  test.each(cases)('%s', async (_name, args, message) => {
    const { code, stderr, stdout } = await cli([command, ...args()]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stdout).toBe('');
  });

  test('a runaway kernel is stopped at the time limit', async () => {
    const { code, stderr } = await cli([command, file('good.wasm', good), '--invoke', 'spin', '--timeout', '0.5']);
    expect(code).toBe(124);
    expect(stderr).toMatch(/good\.wasm: time limit exceeded: spin ran longer than 0\.5 s/);
  });
});

test('instrument writes nothing when the input is bad', async () => {
  const bad = file('bad.wasm', 'nope');
  const before = readdirSync(dir).length;
  const { code, stderr } = await cli(['instrument', bad, '--mode', 'loops', '-o', join(dir, 'out.wasm')]);
  expect(code).toBe(1);
  expect(stderr).toMatch(/bad\.wasm: not a WebAssembly module/);
  expect(readdirSync(dir)).toHaveLength(before);
});

test('an unknown instrumentation mode is a usage error', async () => {
  const { code, stderr } = await cli(['instrument', file('good.wasm', good), '--mode', 'nonsense']);
  expect(code).toBe(2);
  expect(stderr).toMatch(/unknown mode 'nonsense'/);
});

test('a program that outgrows the memory instrumentation leaves it stops with a clear error', async () => {
  const grows = file(
    'grows.wasm',
    wat(`(module (memory (export "memory") 1)
    (func (export "run") (result i32) (memory.grow (i32.const 40))))`),
  );
  const plain = await cli(['run', grows, '--json']);
  expect(JSON.parse(plain.stdout).result).toBe(1);
  const { code, stderr } = await cli(['loops', grows, '--memory-limit', '1']);
  expect(code).toBe(1);
  expect(stderr).toMatch(
    /grows\.wasm: the program grew its memory past its limit \(--memory-limit MiB; default: its declared maximum, else 1024 MiB\) or past what the instrumentation leaves it/,
  );
});
