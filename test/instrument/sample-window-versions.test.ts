// Sampling (issue 27): a charge window's statements run in two copies (passes/sample-window-versions.ts),
// one with its leaves' checks and one without, chosen by the region's own check (or, where code runs
// between the check and the window, by one test of its flag) instead of a flag test before every
// leaf call. The samples must be the ones the flag tests gave, and the ones checking every region and
// leaf one by one gives.
import binaryen from 'binaryen';
import { describe, expect, test } from 'vitest';
import { runSampled, type SampledRun } from '../../src/blame/sample-run.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import type { SampleOptions } from '../../instrument/passes/sample.js';
import { wat } from '../helpers/wat.js';
import { plainResult } from '../helpers/profile.js';
import { samplesOf } from '../helpers/samples.js';

// $weigh is a straight-line leaf longer than a checked region, called with locals: charged at its
// call sites. $sum: two calls in a loop's back-edge region (the -O0 shape; the window also charges
// the header). $mix: three calls at the entry of a function with a result and no loop. $prep: two
// calls at its entry, then a loop (the copies would hold the loop: one flag test picks the copy).
const MODULE = wat(`(module
  (memory (export "memory") 1)
  (func $weigh (param $p i32) (param $i i32) (result i32)
    (i32.add
      (i32.mul (i32.load offset=64 (i32.shl (i32.and (local.get $i) (i32.const 63)) (i32.const 2))) (i32.const 3))
      (i32.xor (local.get $p) (i32.shr_u (local.get $i) (i32.const 1)))))
  (func $sum (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (local.set $i (i32.const 0))
    (block $exit
      (loop $l
        (br_if $exit (i32.ge_s (local.get $i) (local.get $n)))
        (i32.store offset=64 (i32.shl (i32.and (local.get $i) (i32.const 63)) (i32.const 2)) (local.get $s))
        (local.set $s (i32.add (local.get $s) (call $weigh (local.get $s) (local.get $i))))
        (local.set $s (i32.add (local.get $s) (call $weigh (local.get $i) (local.get $s))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))
  (func $mix (param $a i32) (param $b i32) (result i32)
    (local $t i32)
    (local.set $t (call $weigh (local.get $a) (local.get $b)))
    (local.set $t (i32.add (local.get $t) (call $weigh (local.get $b) (local.get $t))))
    (i32.store offset=128 (i32.const 0) (local.get $t))
    (i32.sub (call $weigh (local.get $t) (local.get $a)) (local.get $b)))
  (func $prep (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (local.set $s (call $weigh (local.get $n) (i32.const 7)))
    (local.set $s (i32.xor (local.get $s) (call $weigh (local.get $s) (local.get $n))))
    (loop $l
      (local.set $s (i32.add (i32.mul (local.get $s) (i32.const 5)) (local.get $i)))
      (i32.store offset=256 (i32.shl (i32.and (local.get $i) (i32.const 15)) (i32.const 2)) (local.get $s))
      (br_if $l (i32.lt_s (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func (export "run") (param $n i32) (result i32)
    (local $k i32) (local $s i32)
    (local.set $s (call $prep (local.get $n)))
    (loop $calls
      (local.set $s (i32.add (local.get $s) (call $mix (local.get $k) (local.get $s))))
      (br_if $calls (i32.lt_s (local.tee $k (i32.add (local.get $k) (i32.const 1))) (local.get $n))))
    (i32.add (local.get $s) (i32.add (call $sum (local.get $n)) (call $sum (i32.shr_u (local.get $n) (i32.const 1))))))
)`);

/** How many times the instrumented function `name` calls $weigh, and how many `if`s test a local. */
function shapeOf(sample: SampleOptions, name: string): { calls: number; flagTests: number } {
  const { bytes } = instrumentModule(MODULE, 'fixture.wasm', ['sample'], { sample });
  const module = binaryen.readBinary(bytes);
  try {
    const text = binaryen.emitText(binaryen.getFunctionInfo(module.getFunction(name)).body);
    return {
      calls: text.split('(call $weigh').length - 1,
      flagTests: text.match(/\(if\s*\(local\.get \$\d+\)/g)?.length ?? 0,
    };
  } finally {
    module.dispose();
  }
}

const sampled = (period: number, sample: SampleOptions, n: number): Promise<SampledRun> =>
  runSampled(
    'fixture.wasm',
    MODULE,
    { invoke: 'run', args: [String(n)], argv: [], repeat: 1, timeoutMs: 20_000 },
    { period, instrument: { sample } },
  );

describe('sampling: a charge window in two copies', () => {
  test.each([
    // The region's check picks the copy: no flag test before any leaf call, and $sum's loop header,
    // charged by the window, is checked at the short copy's back edge and before the loop instead.
    ['sum', { calls: 4, flagTests: 0 }, { calls: 2, flagTests: 3 }],
    ['mix', { calls: 6, flagTests: 0 }, { calls: 3, flagTests: 3 }],
    // Code (the loop) follows the window in the copies' only block: one flag test picks the copy.
    ['prep', { calls: 4, flagTests: 1 }, { calls: 2, flagTests: 2 }],
  ])('%s: each leaf call twice, the flag tested once at most', (name, copies, flags) => {
    expect(shapeOf({}, name)).toEqual(copies);
    expect(shapeOf({ windowCopies: false }, name)).toEqual(flags);
  });

  test.each([300, 41])(
    'n = %i: the same samples as the flag tests and as checking every region and leaf, and the same result',
    async (n) => {
      const expected = await plainResult(MODULE, [n]);
      for (const period of [5, 23, 97]) {
        const [checked, flagged, copied] = await Promise.all([
          sampled(period, { chargeAhead: false }, n),
          sampled(period, { windowCopies: false }, n),
          sampled(period, {}, n),
        ]);
        expect(copied.result).toEqual(expected);
        expect(checked.samples.length).toBeGreaterThan(0);
        expect(samplesOf(copied)).toEqual(samplesOf(flagged));
        expect(samplesOf(copied)).toEqual(samplesOf(checked));
      }
    },
    60_000,
  );
});
