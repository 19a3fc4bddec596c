// Straight-line leaves called only directly (instrument/direct-leaves.ts) are counted by their
// callers: calls, instructions and calling contexts must be what a prologue in the leaf would have
// recorded — per call site, under a caller that has a loop, next to a leaf that stays instrumented
// because a table, an export or a branch rules it out.
import { describe, expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import { profile } from '../helpers/profile.js';

const leaves = wat(`(module (memory (export "memory") 1)
  (type $unary (func (param i32) (result i32)))
  (table 1 funcref) (elem (i32.const 0) $inTable)
  (func $twice (param $x i32) (result i32) (i32.add (local.get $x) (local.get $x)))
  (func $inTable (param $x i32) (result i32) (i32.sub (local.get $x) (i32.const 1)))
  (func $exported (export "exported") (param $x i32) (result i32) (i32.mul (local.get $x) (i32.const 3)))
  (func $branchy (param $x i32) (result i32)
    (if (result i32) (i32.and (local.get $x) (i32.const 1)) (then (i32.const 1)) (else (i32.const 2))))
  (func $endsInReturn (param $x i32) (result i32) (return (i32.xor (local.get $x) (i32.const 5))))
  (func $caller (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (call $twice (local.get $i))))
      (local.set $s (i32.add (local.get $s) (call $branchy (local.get $i))))
      (local.set $s (i32.add (local.get $s) (call_indirect (type $unary) (local.get $i) (i32.const 0))))
      (local.set $s (i32.add (local.get $s) (call $exported (local.get $i))))
      (local.set $s (i32.add (local.get $s) (call $endsInReturn (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
    (i32.add (local.get $s) (call $twice (local.get $n))))
  (func $run (export "run") (param $n i32) (result i32)
    (i32.add (call $caller (local.get $n)) (call $caller (i32.const 3)))))`);

describe('direct-call leaves', () => {
  test('calls and instructions per calling context are exact for leaves and the functions kept instrumented', async () => {
    const n = 11;
    const report = await profile(leaves, [n]);
    const path = (p: string) => report.callpaths.find((c) => c.callpath === p);
    // Two call sites of $twice in $caller: n + 3 calls in the loop, 2 after it, all one context.
    expect(path('run->caller->twice')).toMatchObject({ calls: n + 3 + 2, instructions: 3 * (n + 3 + 2) });
    expect(path('run->caller->endsInReturn')).toMatchObject({ calls: n + 3, instructions: 4 * (n + 3) });
    expect(path('run->caller->exported')).toMatchObject({ calls: n + 3, instructions: 3 * (n + 3) });
    expect(path('run->caller->inTable')).toMatchObject({ calls: n + 3, instructions: 3 * (n + 3) });
    // $branchy: condition (3) and if (1), then one constant per call. $endsInReturn: 3 and the return.
    expect(path('run->caller->branchy')).toMatchObject({ calls: n + 3, instructions: 5 * (n + 3) });
    expect(path('run->caller')).toMatchObject({ calls: 2 });
    // One context of $caller's loop per call site of $caller in $run.
    const loops = report.loops.filter((l) => l.function === 'caller');
    expect(loops.map((l) => [l.entries, l.iterations]).sort((a, b) => a[1]! - b[1]!)).toEqual([
      [1, 3],
      [1, n],
    ]);
  });
});
