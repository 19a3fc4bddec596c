// Counted loops run whole (instrument/passes/sample-trips.ts, wholeRunAtEntry): a counted innermost
// loop without calls, entered with a countdown that covers every iteration it will run, runs as an
// unchanged copy of the original loop (its loop-invariant floats re-read after the last call,
// freshFloatReads), not through the checked loop's per-iteration fast-forward. The samples stay the
// ones checking every iteration gives, and a loop that makes calls keeps the fast-forward alone.
import { describe, expect, test } from 'vitest';
import binaryen from 'binaryen';
import { runSampled, type SampledRun } from '../../src/blame/sample-run.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import type { SampleOptions } from '../../instrument/passes/sample.js';
import { wat } from '../helpers/wat.js';
import { plainResult } from '../helpers/profile.js';
import { samplesOf } from '../helpers/samples.js';

// $axpy_rows: rows × n updates y[i] += alpha · x[i] (gemm's inner loop: a float parameter read in a
// counted loop inside a loop whose header is checked); $scaled: a counted loop calling a folded leaf.
const MODULE = wat(`(module
  (memory (export "memory") 2)
  (func $twice (param $v i32) (result i32) (i32.shl (local.get $v) (i32.const 1)))
  (func $axpy_rows (param $rows i32) (param $n i32) (param $alpha f64) (result f64)
    (local $r i32) (local $i i32) (local $s f64)
    (loop $row
      (local.set $i (i32.const 0))
      (loop $col
        (f64.store offset=8192 (i32.shl (local.get $i) (i32.const 3))
          (f64.add
            (f64.load offset=8192 (i32.shl (local.get $i) (i32.const 3)))
            (f64.mul (local.get $alpha) (f64.convert_i32_s (i32.add (local.get $i) (local.get $r))))))
        (br_if $col (i32.lt_s (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
      (br_if $row (i32.ne (local.tee $r (i32.add (local.get $r) (i32.const 1))) (local.get $rows))))
    (local.set $i (i32.const 0))
    (loop $sum
      (local.set $s (f64.add (local.get $s) (f64.load offset=8192 (i32.shl (local.get $i) (i32.const 3)))))
      (br_if $sum (i32.lt_s (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func $scaled (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (call $twice (local.get $i))))
      (i32.store offset=4096 (i32.and (i32.shl (local.get $i) (i32.const 2)) (i32.const 4092)) (local.get $s))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func (export "run") (param $rows i32) (param $n i32) (result f64)
    (f64.add
      (call $axpy_rows (local.get $rows) (local.get $n) (f64.const 0.75))
      (f64.convert_i32_s (call $scaled (i32.mul (local.get $rows) (local.get $n))))))
)`);

/** The instrumented text of one function. */
function functionText(sample: SampleOptions, name: string): string {
  const { bytes } = instrumentModule(MODULE, 'fixture.wasm', ['sample'], { sample });
  const module = binaryen.readBinary(bytes);
  try {
    return binaryen.emitText(binaryen.getFunctionInfo(module.getFunction(name)).body);
  } finally {
    module.dispose();
  }
}

const loopsIn = (text: string) => text.split('(loop ').length - 1;

const sampled = (period: number, sample: SampleOptions, rows: number, n: number): Promise<SampledRun> =>
  runSampled(
    'fixture.wasm',
    MODULE,
    { invoke: 'run', args: [String(rows), String(n)], argv: [], repeat: 1, timeoutMs: 20_000 },
    { period, instrument: { sample } },
  );

describe('sampling: counted loops run whole when the countdown covers them', () => {
  test('a counted loop without calls gets a whole copy reading its floats afresh; one with calls does not', () => {
    const whole = functionText({}, 'axpy_rows');
    const wrapped = functionText({ wholeRuns: false }, 'axpy_rows');
    // Two counted loops ($col, $sum), each with a checked loop, an unchecked copy and now a whole copy.
    expect(loopsIn(wrapped)).toBe(5);
    expect(loopsIn(whole)).toBe(7);
    // alpha is read in the copies through a local set right before each from copysign(alpha, alpha).
    expect(whole).toMatch(/f64\.copysign\s*\(\s*local\.get \$2\s*\)\s*\(\s*local\.get \$2\s*\)/);
    expect(functionText({}, 'scaled')).toBe(functionText({ wholeRuns: false }, 'scaled'));
  });

  test.each([
    [40, 50],
    [3, 7],
  ])(
    'rows %i × n %i: the same samples as the fast-forward alone and as checking every iteration',
    async (rows, n) => {
      const expected = await plainResult(MODULE, [rows, n]);
      for (const period of [5, 97, 4999]) {
        const [whole, wrapped, checked] = await Promise.all([
          sampled(period, {}, rows, n),
          sampled(period, { wholeRuns: false }, rows, n),
          sampled(period, { countedLoops: false }, rows, n),
        ]);
        expect(whole.result).toEqual(expected);
        if (period < 100) expect(checked.samples.length).toBeGreaterThan(0);
        expect(samplesOf(whole)).toEqual(samplesOf(checked));
        expect(samplesOf(wrapped)).toEqual(samplesOf(checked));
      }
    },
    60_000,
  );
});
