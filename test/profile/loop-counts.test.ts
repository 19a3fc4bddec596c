// The loop profiler's counts against closed forms, on hand-written modules whose every loop shape
// is known: top-tested and bottom-tested loops, nests across calls, recursion, indirect calls.
import { describe, expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import { plainResult, profile } from '../helpers/profile.js';

const triangular = wat(`(module (memory (export "memory") 1)
  (func $inner (param $i i32) (result i32) (local $j i32) (local $s i32)
    (block $exit (loop $l
      (br_if $exit (i32.ge_s (local.get $j) (local.get $i)))
      (local.set $s (i32.add (local.get $s) (local.get $j)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $l)))
    (local.get $s))
  (func $run (export "run") (param $n i32) (result i32) (local $i i32) (local $t i32)
    (loop $outer
      (local.set $t (i32.add (local.get $t) (call $inner (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $outer (i32.lt_s (local.get $i) (local.get $n))))
    (local.get $t)))`);

describe('loop profile of a triangular nest across a call', () => {
  test('the inner body runs n(n-1)/2 times and appears under the caller loop with n entries', async () => {
    const n = 37;
    const report = await profile(triangular, [n]);
    const outer = report.loops.find((l) => l.function === 'run')!;
    const inner = report.loops.find((l) => l.function === 'inner')!;
    expect(outer).toMatchObject({ depth: 1, parent: null, entries: 1, iterations: n });
    expect(inner).toMatchObject({ depth: 2, parent: outer.id, entries: n, iterations: (n * (n - 1)) / 2 });
    expect(inner.callpath).toBe('run->inner');
  });

  test('instruction counts are exact', async () => {
    const n = 10;
    const report = await profile(triangular, [n]);
    const inner = report.loops.find((l) => l.function === 'inner')!;
    const outer = report.loops.find((l) => l.function === 'run')!;
    // Inner: a 4-instruction test per header run (n + n(n-1)/2 runs), a 9-instruction body per iteration.
    expect(inner.instructions).toBe(4 * (n + 45) + 9 * 45);
    // Outer: 13 instructions per iteration; inclusive adds the callee (its loop plus 2 per call).
    expect(outer.instructions).toBe(13 * n);
    expect(outer.inclusiveInstructions).toBe(13 * n + inner.instructions + 2 * n);
    const run = report.functions.find((f) => f.name === 'run')!;
    expect(run.inclusiveInstructions).toBe(report.totalInstructions);
    expect(report.totalInstructions).toBe(outer.inclusiveInstructions + 2);
  });

  test('the instrumented module returns what the original returns, and counts repeat exactly', async () => {
    const report = await profile(triangular, [50], { repeat: 3 });
    expect(report.result).toBe(await plainResult(triangular, [50]));
    expect(report.timing.runs).toBe(3);
  });
});

describe('source-level iterations for every loop shape', () => {
  const shapes = wat(`(module
    (func $while_if (param $n i32) (result i32) (local $i i32)
      (loop $l (if (i32.lt_s (local.get $i) (local.get $n))
        (then (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l))))
      (local.get $i))
    (func $do_while (param $n i32) (result i32) (local $i i32)
      (loop $l
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
      (local.get $i))
    (func $mid_exit (param $n i32) (result i32) (local $i i32)
      (block $done (loop $l
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $i (i32.add (local.get $i) (i32.const 0)))
        (br $l)))
      (local.get $i))
    (func $run (export "run") (param $n i32) (result i32)
      (i32.add (i32.add (call $while_if (local.get $n)) (call $do_while (local.get $n))) (call $mid_exit (local.get $n)))))`);

  test('top-tested, bottom-tested and middle-exit loops report the body count', async () => {
    const report = await profile(shapes, [25]);
    const byFunction = Object.fromEntries(report.loops.map((l) => [l.function, l]));
    expect(byFunction.while_if).toMatchObject({ entries: 1, iterations: 25 });
    expect(byFunction.do_while).toMatchObject({ entries: 1, iterations: 25 });
    expect(byFunction.mid_exit).toMatchObject({ entries: 1, iterations: 25 });
  });

  test('a top-tested loop that never runs its body reports zero iterations', async () => {
    const report = await profile(shapes, [0]);
    expect(report.loops.find((l) => l.function === 'while_if')).toMatchObject({ entries: 1, iterations: 0 });
  });
});

describe('calling contexts', () => {
  const contexts = wat(`(module
    (type $fn (func (param i32) (result i32)))
    (table 2 funcref)
    (elem (i32.const 0) $work $work)
    (func $work (param $k i32) (result i32) (local $i i32) (local $s i32)
      (loop $l
        (local.set $s (i32.add (local.get $s) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_s (local.get $i) (local.get $k))))
      (local.get $s))
    (func $fact (param $n i32) (result i32)
      (if (result i32) (i32.le_s (local.get $n) (i32.const 1))
        (then (call $work (i32.const 3)))
        (else (i32.add (call $work (i32.const 2)) (call $fact (i32.sub (local.get $n) (i32.const 1)))))))
    (func $run (export "run") (param $n i32) (result i32) (local $i i32) (local $t i32)
      (local.set $t (call $work (i32.const 7)))
      (loop $l
        (local.set $t (i32.add (local.get $t) (call_indirect (type $fn) (i32.const 4) (i32.and (local.get $i) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
      (i32.add (local.get $t) (call $fact (local.get $n)))))`);

  test('one entry per loop per calling context; recursion folds onto one context', async () => {
    const n = 6;
    const report = await profile(contexts, [n]);
    const work = report.loops.filter((l) => l.function === 'work');
    const runLoop = report.loops.find((l) => l.function === 'run')!;
    // Two direct call sites in run (the straight call and the indirect one) are two contexts.
    expect(work.map((l) => l.callpath).sort()).toEqual([
      'run->fact->work',
      'run->fact->work',
      'run->work',
      'run->work',
    ]);
    const underLoop = work.filter((l) => l.parent === runLoop.id);
    expect(underLoop).toHaveLength(1);
    expect(underLoop[0]).toMatchObject({ entries: n, iterations: 4 * n });
    const direct = work.find((l) => l.callpath === 'run->work' && l.parent === null)!;
    expect(direct).toMatchObject({ entries: 1, iterations: 7 });
    // fact(n) recurses n times: n-1 calls of work(2) from one call site, one of work(3) from another.
    const inFact = work.filter((l) => l.callpath === 'run->fact->work').sort((a, b) => b.entries - a.entries);
    expect(inFact.map((l) => [l.entries, l.iterations])).toEqual([
      [n - 1, 2 * (n - 1)],
      [1, 3],
    ]);
    expect(report.functions.find((f) => f.name === 'fact')!.calls).toBe(n);
    expect(report.result).toBe(await plainResult(contexts, [n]));
  });
});
