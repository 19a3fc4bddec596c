// How a run is timed for benchmarks (issue 27): the CPU time beside the wall time, and
// a module compiled whole with TurboFan computing what the program computes.
import { expect, test } from 'vitest';
import { runModule } from '../../src/runtime/run.js';
import { wat } from '../helpers/wat.js';

const counter = wat(`(module
  (func (export "run") (param $n i32) (result i32) (local $i i32) (local $sum i32)
    (loop $l
      (local.set $sum (i32.add (local.get $sum) (i32.mul (local.get $i) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
    (local.get $sum)))`);

test('every repetition reports its CPU time, and an eagerly optimized module computes the right result', async () => {
  const n = 3_000_000;
  let expected = 0;
  for (let i = 0; i < n; i++) expected = (expected + Math.imul(i, i)) | 0;
  const outcome = await runModule({
    file: 'counter.wasm',
    bytes: counter,
    invoke: 'run',
    args: [String(n)],
    repeat: 2,
    optimized: true,
  });
  for (const rep of outcome.repetitions) {
    expect(rep.result).toBe(expected);
    // Millions of iterations: milliseconds on the CPU, however undisturbed the call ran (a thread's
    // own counter read 0 then). No upper bound: test files running beside this one in the same
    // process add their CPU time.
    expect(rep.cpuMs).toBeGreaterThan(0.1);
  }
});
