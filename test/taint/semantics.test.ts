// Perf-Taint's semantics where users port code: marking replaces labels, per-exit-condition
// parameters per loop instance (and Perf-Taint's JSON of them), recursion whose depth depends on a
// parameter, and the run's timing in the JSON report.
import { test, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { analyzeTaint, parseParamSpec } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';
import { perfTaintJson } from '../../src/taint/exports.js';
import { tempDir } from '../helpers/temp.js';

const T = { timeout: 60_000 };
const KERNEL = 'native/wasm/taint_semantics.wasm';

async function analyzeKernel(invoke: string, args: string[]) {
  const bytes = readFileSync(KERNEL);
  const plain = await runModule({ file: KERNEL, bytes, invoke, args });
  const result = await analyzeTaint({ file: KERNEL, bytes, invoke, args });
  expect(result.outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
  return result.report;
}

test(
  'register_variable on a variable that carries labels replaces them: marked a, then b, the loop depends on b only',
  T,
  async () => {
    const report = await analyzeKernel('remark', ['5']);
    const loop = report.loops.find((l) => l.function === 'remark')!;
    expect(loop.params).toEqual(['b']);
    expect(loop.iterations).toBe(5);
    expect(report.functions.find((f) => f.name === 'remark')!.dependency).toBe('b');
    expect(report.prunable).toEqual(['a']);
  },
);

test('register_variable in WAT: re-marking a word replaces its label, marking another word keeps both', T, async () => {
  const bytes = wat(`(module
    (import "taintlens" "register_variable" (func $mark (param i32 i32 i32)))
    (memory (export "memory") 1)
    (data (i32.const 16) "a\\00b\\00")
    (func (export "run") (param $n i32) (result i32) (local $i i32)
      (i32.store (i32.const 64) (local.get $n))
      (i32.store (i32.const 68) (local.get $n))
      (call $mark (i32.const 64) (i32.const 4) (i32.const 16))
      (call $mark (i32.const 68) (i32.const 4) (i32.const 16))
      (call $mark (i32.const 64) (i32.const 4) (i32.const 18))
      (block $exit (loop $l
        (br_if $exit (i32.ge_s (local.get $i) (i32.load (i32.const 64))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (block $exit (loop $l
        (br_if $exit (i32.ge_s (local.get $i) (i32.add (i32.load (i32.const 64)) (i32.load (i32.const 68)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $i)))`);
  const { report } = await analyzeTaint({ file: 'mark.wasm', bytes, invoke: 'run', args: ['3'] });
  expect(report.loops.map((l) => l.params)).toEqual([['b'], ['a', 'b']]);
});

test(
  'a loop with two exit conditions keeps the parameters of each; Perf-Taint JSON lists them per instance',
  T,
  async () => {
    // Two calls of the same search: the count exit depends on n, the match exit on m (second call: on nothing).
    const bytes = wat(`(module (memory (export "memory") 1)
    (func $search (param $n i32) (param $m i32) (result i32) (local $i i32)
      (block $done (loop $l
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (br_if $done (i32.eq (i32.load (i32.shl (local.get $i) (i32.const 2))) (local.get $m)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $i))
    (func (export "run") (param $n i32) (param $m i32) (result i32)
      (i32.add (call $search (local.get $n) (local.get $m)) (call $search (local.get $n) (i32.const 5)))))`);
    const { report } = await analyzeTaint({
      file: 'search.wasm',
      bytes,
      invoke: 'run',
      args: ['6', '9'],
      params: ['n=arg0', 'm=arg1'].map(parseParamSpec),
      implicitFlow: 'on',
      pointerLabels: 'data',
    });
    const loop = report.loops.find((l) => l.function === 'search')!;
    expect(loop.exits).toHaveLength(2);
    // The counter is carried into the next iteration, so it takes the labels of both exits (every branch's control flow).
    expect(loop.contexts.map((c) => c.exits)).toEqual([
      [['n', 'm'], ['m']],
      [['n'], []],
    ]);
    const pt = perfTaintJson(report) as {
      functions: Record<string, { loops: Array<{ callstacks: number[][]; instance: unknown }> }>;
      functions_names: string[];
    };
    const entries = pt.functions.search!.loops;
    expect(entries.map((e) => e.instance)).toEqual([
      { 0: { level: 0, params: [['n', 'm'], ['m']] } },
      { 0: { level: 0, params: [['n']] } },
    ]);
    const run = pt.functions_names.indexOf('run');
    expect(entries.map((e) => e.callstacks)).toEqual([[[run]], [[run]]]);
  },
);

test('C kernel: recursion whose depth depends on n warns and counts like a loop over n', T, async () => {
  const report = await analyzeKernel('fib', ['12']);
  const fib = report.functions.find((f) => f.name === 'fib_rec')!;
  expect(report.loops.filter((l) => l.function === 'fib_rec')).toEqual([]);
  expect(fib.dependency).toBe('n');
  expect(fib.pruned).toBeNull();
  expect(report.warnings).toEqual([
    expect.stringMatching(/^fib_rec is recursive and its recursion depth depends on n \(branch B\d+\)/),
  ]);
});

test('recursion with a constant depth does not warn', T, async () => {
  const bytes = wat(`(module (memory (export "memory") 1)
    (func $rec (param $d i32) (result i32)
      (if (result i32) (i32.eqz (local.get $d)) (then (i32.const 1))
        (else (i32.add (i32.const 1) (call $rec (i32.sub (local.get $d) (i32.const 1)))))))
    (func (export "run") (param $n i32) (result i32) (i32.add (local.get $n) (call $rec (i32.const 4)))))`);
  const { report } = await analyzeTaint({
    file: 'rec.wasm',
    bytes,
    invoke: 'run',
    args: ['3'],
    params: [parseParamSpec('n=arg0')],
  });
  expect(report.warnings).toEqual([]);
  expect(report.functions.find((f) => f.name === 'rec')!.dependency).toBeNull();
});

test("CLI: taint --json reports the run's timing; --perf-taint-json writes instances per call path", T, async () => {
  const dir = tempDir('taintlens-taint-sem-');
  const out = await cli([
    'taint',
    KERNEL,
    '--invoke',
    'contexts',
    '--args',
    '3,4',
    '--repeat',
    '2',
    '--json',
    '--perf-taint-json',
    join(dir, 'pt.json'),
  ]);
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  const report = JSON.parse(out.stdout);
  expect(report.schema).toBe('taintlens/taint@2');
  expect(report.timing.runs).toBe(2);
  expect(report.timing.medianMs).toBeGreaterThan(0);
  const pt = JSON.parse(readFileSync(join(dir, 'pt.json'), 'utf8'));
  expect(pt.functions.g.loops).toHaveLength(2);
  const text = await cli(['taint', KERNEL, '--invoke', 'contexts', '--args', '3,4']);
  expect(text.stdout).toMatch(/contexts→via_a→h→g \(C\d+\)\s+x1, x2/);
});

test('a context tree too small for even one scratch node stops the run with a clear message', T, async () => {
  const bytes = readFileSync(KERNEL);
  await expect(
    analyzeTaint({ file: KERNEL, bytes, invoke: 'contexts', args: ['3', '4'], instrument: { contextBytes: 128 } }),
  ).rejects.toThrow(
    /taint_semantics\.wasm: .*calling-context tree is full and a function's context node is larger than its scratch area: raise --context-tree/,
  );
});
