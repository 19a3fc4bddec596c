// Header counts derived from an induction variable at loop exit (instrument/passes/loops-induction.ts)
// and leaf calls counted from the header counter with their node check at loop entry
// (loops-leaf-calls.ts) must give the counts a per-iteration increment gives: rotated loops
// stepping by 1, by -8 and by 4 with a wrap around 2^32, next to a loop that leaves mid-body (kept
// on the per-iteration increment).
import { describe, expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import { profile } from '../helpers/profile.js';

const loops = wat(`(module (memory (export "memory") 1)
  (func $leaf (param $x i32) (result i32) (i32.mul (local.get $x) (i32.const 3)))
  ;; do { s += leaf(i); i += 1 } while (i != n): n iterations
  (func $up (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (call $leaf (local.get $i))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  ;; p from 8n down to 0 by 8: n iterations
  (func $down (param $n i32) (result i32) (local $p i32) (local $s i32)
    (local.set $p (i32.shl (local.get $n) (i32.const 3)))
    (loop $l
      (local.set $p (i32.sub (local.get $p) (i32.const 8)))
      (local.set $s (i32.add (local.get $s) (local.get $p)))
      (br_if $l (local.get $p)))
    (local.get $s))
  ;; q from -4n by 4 through the wrap at 2^32 to 0 (unsigned distance): n iterations
  (func $wraps (param $n i32) (result i32) (local $q i32) (local $s i32)
    (local.set $q (i32.mul (local.get $n) (i32.const -4)))
    (loop $l
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (local.set $q (i32.add (i32.const 4) (local.get $q)))
      (br_if $l (local.get $q)))
    (local.get $s))
  ;; leaves by a break mid-body: no derived count
  (func $breaks (param $n i32) (result i32) (local $i i32)
    (block $out (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $out (i32.ge_s (local.get $i) (local.get $n)))
      (br $l)))
    (local.get $i))
  (func $run (export "run") (param $n i32) (result i32)
    (i32.add (i32.add (call $up (local.get $n)) (call $down (local.get $n)))
      (i32.add (call $wraps (local.get $n)) (call $breaks (local.get $n))))))`);

describe('header counts from induction variables', () => {
  test('iterations, instructions and leaf calls equal the per-iteration counts', async () => {
    const n = 37;
    const report = await profile(loops, [n]);
    const loopOf = (fn: string) => report.loops.find((l) => l.function === fn)!;
    for (const fn of ['up', 'down', 'wraps', 'breaks'])
      expect(loopOf(fn), fn).toMatchObject({ entries: 1, iterations: n });
    // Per iteration: $up 12 instructions in the body (the call counted as one), $down 10, $wraps 10.
    expect(loopOf('up').instructions).toBe(12 * n);
    expect(loopOf('down').instructions).toBe(10 * n);
    expect(loopOf('wraps').instructions).toBe(10 * n);
    expect(report.callpaths.find((c) => c.callpath === 'run->up->leaf')).toMatchObject({
      calls: n,
      instructions: 3 * n,
    });
  });
});
