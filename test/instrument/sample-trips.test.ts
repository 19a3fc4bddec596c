// Counted innermost loops under the sampler (instrument/passes/sample-trips.ts): the loops whose
// trip count is known on entry are found (steps ±2^p, `!=`, `<`, `<=`, `>`, `>=`, signed and
// unsigned, bound constant or invariant local), the others are not, and charging them on entry
// gives exactly the samples (region, call path, store addresses) that checking every iteration
// gives (with checks charged ahead on -O0's shape too), at periods shorter and longer than a
// loop's run, with fewer instructions executed.
import { describe, expect, test } from 'vitest';
import { runSampled, type SampledRun } from '../../src/blame/sample-run.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';
import { wat } from '../helpers/wat.js';
import { plainResult } from '../helpers/profile.js';
import { samplesOf } from '../helpers/samples.js';

// Each function fills memory from a start value to a bound and returns a checksum; `run` calls
// them all. $up_ne is clang -O2's shape (step 2, `!=`), $down_ge counts down by 4 to a signed
// bound, $wrap's first step wraps (its trip count is not trusted on entry), $branchy has an
// `if` in its body and $nested an inner loop (neither is counted; $nested's inner loop is).
const MODULE = wat(`(module
  (memory (export "memory") 2)
  (func $up_ne (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (i32.store (i32.shl (local.get $i) (i32.const 2)) (local.get $i))
      (local.set $s (i32.add (local.get $s) (i32.load (i32.shl (local.get $i) (i32.const 2)))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 2))) (local.get $n))))
    (local.get $s))
  (func $up_lt_u (param $from i32) (param $n i32) (result i32) (local $s i32)
    (loop $l
      (i32.store offset=4096 (i32.shl (local.get $from) (i32.const 2)) (local.get $s))
      (local.set $s (i32.xor (local.get $s) (i32.mul (local.get $from) (i32.const 7))))
      (local.set $from (i32.add (local.get $from) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $from) (local.get $n))))
    (local.get $s))
  (func $up_le_s (param $n i32) (result i32) (local $i i32) (local $s i32)
    (local.set $i (i32.const -5))
    (loop $l
      (local.set $s (i32.add (local.get $s) (local.get $i)))
      (i32.store offset=8192 (i32.shl (i32.add (local.get $i) (i32.const 5)) (i32.const 2)) (local.get $s))
      (br_if $l (i32.ge_s (local.get $n) (local.tee $i (i32.add (local.get $i) (i32.const 8))))))
    (local.get $s))
  (func $down_ge (param $n i32) (result i32) (local $i i32) (local $s i32)
    (local.set $i (local.get $n))
    (loop $l
      (local.set $s (i32.add (i32.mul (local.get $s) (i32.const 3)) (local.get $i)))
      (i32.store offset=12288 (i32.and (local.get $i) (i32.const 4092)) (local.get $s))
      (br_if $l (i32.ge_s (local.tee $i (i32.sub (local.get $i) (i32.const 4))) (i32.const -3))))
    (local.get $s))
  (func $down_gt_u (param $n i32) (result i32) (local $i i32) (local $s i32)
    (local.set $i (local.get $n))
    (loop $l
      (local.set $s (i32.add (local.get $s) (i32.shl (local.get $i) (i32.const 1))))
      (i32.store offset=16384 (i32.and (local.get $i) (i32.const 4092)) (local.get $s))
      (br_if $l (i32.gt_u (local.tee $i (i32.add (local.get $i) (i32.const -1))) (i32.const 2))))
    (local.get $s))
  (func $wrap (result i32) (local $i i32) (local $s i32)
    ;; i starts past the bound; its first step wraps it negative, which keeps the loop going up to 2^24 (129 iterations)
    (local.set $i (i32.const 0x7f000000))
    (loop $l
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br_if $l (i32.lt_s (local.tee $i (i32.add (local.get $i) (i32.const 0x1000000))) (i32.const 16))))
    (local.get $s))
  (func $branchy (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (if (i32.and (local.get $i) (i32.const 1))
        (then (local.set $s (i32.add (local.get $s) (local.get $i)))))
      (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func $nested (param $n i32) (result i32) (local $i i32) (local $j i32) (local $s i32)
    (loop $outer
      (local.set $j (i32.const 0))
      (loop $inner
        (i32.store offset=20480 (i32.shl (i32.and (local.get $j) (i32.const 1023)) (i32.const 2)) (local.get $i))
        (local.set $s (i32.add (local.get $s) (local.get $j)))
        (br_if $inner (i32.lt_s (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $i))))
      (br_if $outer (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func $o0 (param $n i32) (result i32) (local $s i32)
    ;; clang -O0's shape: the counter in memory, the exit test at the header, a plain br back
    (i32.store offset=24576 (i32.const 0) (i32.const 0))
    (block $exit
      (loop $l
        (br_if $exit (i32.ge_s (i32.load offset=24576 (i32.const 0)) (local.get $n)))
        (i32.store offset=24580
          (i32.shl (i32.and (i32.load offset=24576 (i32.const 0)) (i32.const 255)) (i32.const 2))
          (local.get $s))
        (local.set $s (i32.add (local.get $s) (i32.load offset=24576 (i32.const 0))))
        (i32.store offset=24576 (i32.const 0) (i32.add (i32.load offset=24576 (i32.const 0)) (i32.const 1)))
        (br $l)))
    (local.get $s))
  (func (export "run") (param $n i32) (result i32)
    (i32.add
      (i32.add
        (i32.add (call $up_ne (i32.shl (local.get $n) (i32.const 1))) (call $up_lt_u (i32.const 3) (local.get $n)))
        (i32.add (call $up_le_s (local.get $n)) (call $down_ge (local.get $n))))
      (i32.add
        (i32.add (call $down_gt_u (local.get $n)) (i32.add (call $wrap) (call $o0 (local.get $n))))
        (i32.add (call $branchy (local.get $n)) (call $nested (i32.shr_u (local.get $n) (i32.const 3)))))))
)`);

const sampled = (period: number, countedLoops: boolean, n: number): Promise<SampledRun> =>
  runSampled(
    'fixture.wasm',
    MODULE,
    { invoke: 'run', args: [String(n)], argv: [], repeat: 1, timeoutMs: 20_000 },
    { period, instrument: { sample: { countedLoops, chargeAhead: countedLoops } } },
  );

describe('sampling: counted innermost loops charged on entry', () => {
  test('the counted loops are the straight-line innermost loops with a trip count known on entry', () => {
    const { sites } = instrumentModule(MODULE, 'fixture.wasm', ['sample']);
    const layout = sites.passes.sample as SampleLayout;
    const counted = layout.countedLoops.map((id) => {
      const loop = sites.loops.find((l) => l.id === id)!;
      return `${loop.function}/${loop.depth}`;
    });
    expect(counted).toEqual(['up_ne/1', 'up_lt_u/1', 'up_le_s/1', 'down_ge/1', 'down_gt_u/1', 'wrap/1', 'nested/2']);
    // $o0's header is charged by its body's check (passes/sample.ts prechargeHeaders): other code.
    const checked = instrumentModule(MODULE, 'fixture.wasm', ['sample'], { sample: { chargeAhead: false } });
    expect(
      Buffer.from(checked.bytes).equals(Buffer.from(instrumentModule(MODULE, 'fixture.wasm', ['sample']).bytes)),
    ).toBe(false);
  });

  test.each([1000, 40])(
    'n = %i: the same samples as checking every iteration, and the same result',
    async (n) => {
      const expected = await plainResult(MODULE, [n]);
      for (const period of [5, 97, 4999]) {
        const [checked, charged] = await Promise.all([sampled(period, false, n), sampled(period, true, n)]);
        expect(charged.result).toEqual(expected);
        if (period < 100) expect(checked.samples.length).toBeGreaterThan(0);
        expect(samplesOf(charged)).toEqual(samplesOf(checked));
      }
    },
    60_000,
  );
});
