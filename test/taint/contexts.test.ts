// Loop sinks per calling context: the same loop, entered from two call sites, keeps the labels
// and iterations of each caller apart (the report's `contexts`), and their union is the loop's.
import { test, expect } from 'vitest';
import { wat } from '../helpers/wat.js';
import { analyzeTaint, parseParamSpec } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';
import { renderTaintReport } from '../../src/taint/text.js';

/** Counts to its argument: the loop's exit condition carries the argument's labels. */
const COUNT = `(func $count (param $bound i32) (result i32) (local $i i32)
      (block $exit (loop $l
        (br_if $exit (i32.ge_s (local.get $i) (local.get $bound)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $i))`;

test('a loop keeps one record per direct call site of its function; host entries use their own', { timeout: 60_000 }, async () => {
  const bytes = wat(`(module (memory (export "memory") 1)
    (type $t (func (param i32) (result i32)))
    (table 1 funcref) (elem (i32.const 0) $count)
    ${COUNT}
    (func (export "run") (param $n i32) (result i32)
      (i32.add
        (i32.add (call $count (local.get $n)) (call $count (i32.const 3)))
        (call_indirect (type $t) (i32.const 2) (i32.const 0)))))`);
  const plain = await runModule({ file: 'contexts.wasm', bytes, invoke: 'run', args: ['5'] });
  const { report, outcome } = await analyzeTaint({ file: 'contexts.wasm', bytes, invoke: 'run', args: ['5'], params: [parseParamSpec('n=arg0')] });
  expect(outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
  const loop = report.loops.find((l) => l.function === 'count')!;
  expect(loop.params).toEqual(['n']);
  expect(loop.iterations).toBe(5 + 3 + 2);
  expect(loop.contexts).toEqual([
    { call: null, caller: null, params: [], iterations: 2 },
    { call: expect.any(String), caller: 'run', params: ['n'], iterations: 5 },
    { call: expect.any(String), caller: 'run', params: [], iterations: 3 },
  ]);
  expect(loop.contexts[1]!.call).not.toBe(loop.contexts[2]!.call);
});

test('the text report lists the calling contexts of a loop whose parameters differ by caller', { timeout: 60_000 }, async () => {
  const bytes = wat(`(module (memory (export "memory") 1)
    ${COUNT}
    (func (export "run") (param $n i32) (result i32)
      (i32.add (call $count (local.get $n)) (call $count (i32.const 3)))))`);
  const { report } = await analyzeTaint({ file: 'contexts.wasm', bytes, invoke: 'run', args: ['4'], params: [parseParamSpec('n=arg0')] });
  const text = renderTaintReport(report);
  expect(text).toContain('loops whose parameters depend on the calling context');
  expect(text).toMatch(/count\s+run \(C\d+\)\s+n\s+4/);
  expect(text).toMatch(/count\s+run \(C\d+\)\s+-\s+3/);
});

test('a call in a loop multiplies with its callee in that call\'s context: count(3) in a k-loop is k, not k*n', { timeout: 60_000 }, async () => {
  const bytes = wat(`(module (memory (export "memory") 1)
    ${COUNT}
    (func $sweep (param $k i32) (result i32) (local $j i32) (local $acc i32)
      (block $exit (loop $l
        (br_if $exit (i32.ge_s (local.get $j) (local.get $k)))
        (local.set $acc (i32.add (local.get $acc) (call $count (i32.const 3))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l)))
      (local.get $acc))
    (func (export "run") (param $n i32) (param $k i32) (result i32)
      (i32.add (call $count (local.get $n)) (call $sweep (local.get $k)))))`);
  const { report } = await analyzeTaint({ file: 'contexts.wasm', bytes, invoke: 'run', args: ['4', '2'], params: ['n=arg0', 'k=arg1'].map(parseParamSpec) });
  const fn = (name: string) => report.functions.find((f) => f.name === name)!;
  expect(fn('count').dependency).toBe('n');
  expect(fn('sweep').dependency).toBe('k');
  expect(fn('count').contexts).toHaveLength(2);
  expect(fn('count').contexts).toEqual(expect.arrayContaining([
    { call: expect.any(String), caller: 'run', dependency: 'n' },
    { call: expect.any(String), caller: 'sweep', dependency: null },
  ]));
});
