// The four control-flow failure classes of issue #10 on hand-written WAT, independent of a
// compiler: a forward br_if over an unconditional exit, a syntactically nested but sequential
// loop, an if/else diamond made of blocks before a call, and a float-to-int range-check diamond.
import type { ImplicitFlow } from '../../instrument/passes/taint-semantics.js';
import { expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import { FLOAT_TO_INT_DIAMOND, SEQUENTIAL_NEST } from '../helpers/loop-shapes.js';
import { analyzeTaint, parseParamSpec } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';

const T = { timeout: 60_000 };

// Every branch's control dependence (`--implicit-flow on`) unless a test says otherwise.
async function analyze(text: string, args: string[], params: string[], implicitFlow: ImplicitFlow = 'on') {
  const bytes = wat(text);
  const plain = await runModule({ file: 'fixture.wasm', bytes, invoke: 'run', args });
  const result = await analyzeTaint({
    file: 'fixture.wasm',
    bytes,
    invoke: 'run',
    args,
    params: params.map(parseParamSpec),
    implicitFlow,
  });
  expect(result.outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
  return result.report;
}

// A constant loop whose counter lives in memory (as at -O0): a leaked control label would reach it.
const constLoop = `
  (func $const_loop (result i32) (local $acc i32)
    (i32.store (i32.const 0) (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.ge_s (i32.load (i32.const 0)) (i32.const 10)))
      (local.set $acc (i32.add (local.get $acc) (i32.load (i32.const 0))))
      (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1)))
      (br $l)))
    (local.get $acc))`;

test(
  'classes 1 and 3: the forward br_if is the loop exit; neither it nor a block diamond taints a later callee',
  T,
  async () => {
    const report = await analyze(
      `(module (memory (export "memory") 1) ${constLoop}
    (func (export "run") (param $n i32) (param $c i32) (result i32) (local $i i32) (local $x i32)
      (block $out (loop $l
        (block $b (br_if $b (i32.lt_s (local.get $i) (local.get $n))) (br $out))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (block $m
        (block $e (br_if $e (local.get $c)) (local.set $x (i32.const 1)) (br $m))
        (local.set $x (i32.const 2)))
      (i32.add (i32.add (local.get $x) (local.get $i)) (call $const_loop))))`,
      ['5', '1'],
      ['n=arg0', 'c=arg1'],
    );
    const run = report.loops.find((l) => l.function === 'run')!;
    expect(run).toMatchObject({ params: ['n'], iterations: 5 });
    expect(report.loops.find((l) => l.function === 'const_loop')!.params).toEqual([]);
    expect(report.functions.find((f) => f.name === 'const_loop')!.dependency).toBeNull();
    expect(report.branches.filter((b) => b.executed).map((b) => b.params)).toEqual([['c']]);
  },
);

test('class 2: a br_if leaving three sequential loops nested by the compiler exits only the last', T, async () => {
  const report = await analyze(`(module ${SEQUENTIAL_NEST})`, ['3', '4', '5'], ['n=arg0', 'm=arg1', 'k=arg2']);
  expect(report.loops.map((l) => [l.parent, l.params])).toEqual([
    [null, ['n']],
    [null, ['m']],
    [null, ['k']],
  ]);
  expect(report.functions[0]!.dependency).toBe('k + m + n');
});

test(
  'class 4: the constant side of a float-to-int range check carries the condition, with --implicit-flow off too (a conversion, as in DFSan)',
  T,
  async () => {
    const text = `(module
    (func (export "run") (param $n i32) (result i32) (local $x f64) (local $r i32) (local $i i32)
      (local.set $x (f64.mul (f64.convert_i32_s (local.get $n)) (f64.const 1e12)))
      ${FLOAT_TO_INT_DIAMOND}
      (local.set $r (i32.add (i32.shr_u (local.get $r) (i32.const 29)) (i32.const 3)))
      (block $end (loop $l
        (br_if $end (i32.ge_u (local.get $i) (local.get $r)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $i)))`;
    const on = await analyze(text, ['5'], ['n=arg0']);
    expect(on.loops[0]).toMatchObject({ params: ['n'], iterations: 7 });
    const off = await analyze(text, ['5'], ['n=arg0'], 'off');
    expect(off.loops[0]).toMatchObject({ params: ['n'], iterations: 7 });
    expect(off.branches.map((b) => b.params)).toEqual([['n']]);
  },
);

test('a result chosen between returns carries the condition that chose it', T, async () => {
  const report = await analyze(
    `(module
    (func $pick (param $c i32) (result i32)
      (if (i32.gt_s (local.get $c) (i32.const 2)) (then (return (i32.const 3))))
      (i32.const 5))
    (func (export "run") (param $c i32) (result i32) (local $i i32) (local $r i32)
      (local.set $r (call $pick (local.get $c)))
      (block $end (loop $l
        (br_if $end (i32.ge_s (local.get $i) (local.get $r)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $i)))`,
    ['4'],
    ['c=arg0'],
  );
  expect(report.loops[0]).toMatchObject({ params: ['c'], iterations: 3 });
});
