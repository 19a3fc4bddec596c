// Stack-frame labels in locals (instrument/passes/shadow-frame.ts): a frame word's label lives in a
// local while its function runs, comes from the shadow when the function may read it before
// writing it, and goes back to the shadow at exit, so labels are what the word shadow gives.
import { test, expect } from 'vitest';
import { taintWat } from '../helpers/taint.js';

const T = { timeout: 60_000 };

// `$put` keeps n in its frame slot (sp − 4) and returns; `$stale` has its frame at the same
// address and reads that slot without writing it: it sees what `$put` left (label n), and loops
// that many times & 7. `$own` writes k into its slot and loops to the slot's value & 7, reading it
// every iteration. `$escape` passes its slot's address on: its frame stays in shadow memory, and
// `$stale_at` reads k through it. `$put` and `$stale` need the exit write-back and the entry load.
const frames = `(module (memory (export "memory") 1)
  (global $__stack_pointer (mut i32) (i32.const 4096))
  (func $put (param $n i32)
    (local $fp i32)
    (local.set $fp (i32.sub (global.get $__stack_pointer) (i32.const 16)))
    (i32.store offset=12 (local.get $fp) (local.get $n)))
  (func $stale (result i32)
    (local $fp i32) (local $i i32)
    (local.set $fp (i32.sub (global.get $__stack_pointer) (i32.const 16)))
    (block $done (loop $l
      (br_if $done (i32.ge_s (local.get $i) (i32.and (i32.load offset=12 (local.get $fp)) (i32.const 7))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $i))
  (func $own (param $k i32) (result i32)
    (local $fp i32)
    (local.set $fp (i32.sub (global.get $__stack_pointer) (i32.const 16)))
    (i32.store offset=8 (local.get $fp) (local.get $k))
    (i32.store offset=4 (local.get $fp) (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.ge_s (i32.load offset=4 (local.get $fp)) (i32.and (i32.load offset=8 (local.get $fp)) (i32.const 7))))
      (i32.store offset=4 (local.get $fp) (i32.add (i32.load offset=4 (local.get $fp)) (i32.const 1)))
      (br $l)))
    (i32.load offset=4 (local.get $fp)))
  (func $escape (param $k i32) (result i32)
    (local $fp i32)
    (local.set $fp (i32.sub (global.get $__stack_pointer) (i32.const 16)))
    (i32.store offset=12 (local.get $fp) (local.get $k))
    (call $stale_at (i32.add (local.get $fp) (i32.const 12))))
  (func $stale_at (param $p i32) (result i32)
    (local $i i32)
    (block $done (loop $l
      (br_if $done (i32.ge_s (local.get $i) (i32.and (i32.load (local.get $p)) (i32.const 7))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $i))
  (func (export "run") (param $n i32) (param $k i32) (param $m i32) (result i32)
    (call $put (local.get $n))
    (i32.add (i32.add (call $stale) (call $own (local.get $k))) (call $escape (local.get $m)))))`;

test(
  'frame labels in locals: a slot read before written sees the shadow, a written slot its own label',
  T,
  async () => {
    const report = await taintWat(frames, 'run', ['5', '3', '6'], ['n=arg0', 'k=arg1', 'm=arg2']);
    const loopOf = (fn: string) => report.loops.find((loop) => loop.function === fn)?.params;
    expect(loopOf('stale')).toEqual(['n']);
    expect(loopOf('own')).toEqual(['k']);
    expect(loopOf('stale_at')).toEqual(['m']);
  },
);
