// Tail calls (return_call, return_call_indirect) run as a call and a return under instrumentation:
// every mode's module validates without the tail-call feature, computes what the original does,
// and counts the loops reached through tail calls.
import { expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import { taintWat } from '../helpers/taint.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import { runModule } from '../../src/runtime/run.js';
import { profileLoops } from '../../src/profile/profile-run.js';

// $sum adds k ones in a loop, then tail-calls itself (through the table and $step) with k - 1:
// run(n) = n(n+1)/2, stored by a void tail call ($finish -> $store) and read back.
const TAIL_CALLS = `(module
  (type $pair (func (param i32 i32) (result i32)))
  (table 1 funcref)
  (elem (i32.const 0) $step)
  (memory (export "memory") 1)
  (func $sum (param $k i32) (param $acc i32) (result i32) (local $i i32)
    (if (i32.eqz (local.get $k)) (then (return (local.get $acc))))
    (block $done (loop $l
      (br_if $done (i32.ge_s (local.get $i) (local.get $k)))
      (local.set $acc (i32.add (local.get $acc) (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (return_call_indirect (type $pair) (i32.sub (local.get $k) (i32.const 1)) (local.get $acc) (i32.const 0)))
  (func $step (type $pair) (return_call $sum (local.get 0) (local.get 1)))
  (func $store (param $v i32) (i32.store (i32.const 16) (local.get $v)))
  (func $finish (param $v i32) (return_call $store (local.get $v)))
  (func (export "run") (param $n i32) (result i32)
    (call $finish (call $sum (local.get $n) (i32.const 0)))
    (i32.load (i32.const 16))))`;

const bytes = wat(TAIL_CALLS);
const run = { invoke: 'run', args: ['20'], argv: [], repeat: 1, timeoutMs: 60_000 };

test('every mode lowers the three tail calls and validates without the tail-call feature', () => {
  for (const mode of ['loops', 'taint', 'sample', 'measure']) {
    const { bytes: out, sites } = instrumentModule(bytes, 'tail.wasm', [mode]);
    expect(sites.tailCalls, mode).toBe(3);
    expect(WebAssembly.validate(out as Uint8Array<ArrayBuffer>), mode).toBe(true);
  }
});

test('loops: the same result, and every iteration of the loop reached through tail calls counted', async () => {
  const plain = await runModule({ file: 'tail.wasm', bytes, invoke: 'run', args: ['20'] });
  expect(plain.repetitions[0]!.result).toBe(210);
  const profile = await profileLoops('tail.wasm', bytes, run);
  expect(profile.result).toBe(210);
  expect(profile.loops.reduce((sum, loop) => sum + loop.iterations, 0)).toBe(210);
});

test('taint: the loop reached through tail calls depends on n', async () => {
  const report = await taintWat(TAIL_CALLS, 'run', ['20'], ['n=arg0']);
  expect(report.loops.map((loop) => loop.params)).toEqual([['n']]);
});
