// Engine limits (instrument/engine-limits.ts): a function the taint pass takes over V8's 50,000
// locals still compiles and computes what it computed, its loop's label intact; locals whose values
// live across a loop's iterations, or that are read before they are set, keep their own index.
import { expect, test } from 'vitest';
import binaryen from 'binaryen';
import { wat } from '../helpers/wat.js';
import { taintChecked } from '../helpers/taint.js';
import { parseParamSpec } from '../../src/taint/analyze.js';
import { ENGINE_LIMITS, fitLocals } from '../../instrument/engine-limits.js';
import { Func } from '../../instrument/ir.js';

const T = { timeout: 60_000 };

/** Locals in each defined function of a binary. */
function localCounts(bytes: Uint8Array): number[] {
  const module = binaryen.readBinary(bytes);
  try {
    const counts: number[] = [];
    for (let i = 0; i < module.getNumFunctions(); i++) {
      const func = module.getFunctionByIndex(i);
      if (Func.getBody(func)) counts.push(Func.getNumLocals(func));
    }
    return counts;
  } finally {
    module.dispose();
  }
}

// 8,500 locals, each the previous plus one: within the limit, but the taint pass gives every local
// a shadow label and flattening adds temporaries (six locals each), which takes the function over it.
const CHAIN = 8_500;
const chain = `(module
  (func (export "run") (param $n i32) (result i32)
    ${Array.from({ length: CHAIN }, (_, k) => `(local $v${k} i32)`).join(' ')} (local $i i32) (local $acc i32)
    (local.set $v0 (local.get $n))
    ${Array.from({ length: CHAIN - 1 }, (_, k) => `(local.set $v${k + 1} (i32.add (local.get $v${k}) (i32.const 1)))`).join('\n')}
    (block $done (loop $next
      (br_if $done (i32.ge_s (local.get $i) (i32.sub (local.get $v${CHAIN - 1}) (i32.const ${CHAIN - 1}))))
      (local.set $acc (i32.add (local.get $acc) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.add (local.get $acc) (local.get $v${CHAIN - 1}))))`;

test(
  'a function the taint pass takes over 50,000 locals compiles, computes the same and keeps its labels',
  T,
  async () => {
    const { report, outcome, instrumented, sites } = await taintChecked({
      file: 'chain.wasm',
      bytes: wat(chain),
      invoke: 'run',
      args: ['7'],
      params: [parseParamSpec('n=arg0')],
    });
    expect(outcome.repetitions[0]!.result).toEqual((7 * 6) / 2 + 7 + CHAIN - 1);
    expect(report.loops.map((loop) => loop.params)).toEqual([['n']]);
    expect(sites.fitted).toHaveLength(1);
    expect(sites.fitted![0]!.locals).toBeGreaterThan(ENGINE_LIMITS.locals);
    expect(Math.max(...localCounts(instrumented))).toBe(sites.fitted![0]!.fitted);
    expect(sites.fitted![0]!.fitted).toBeLessThan(1000);
  },
);

test('fitLocals merges only locals set before every read and dead outside their span', () => {
  // $t1 and $t2: set then read in one stretch each (mergeable). $carry: read at the top of the loop
  // body before it is set (its value crosses iterations). $zero: read before any set (its zero).
  // $inner: first set inside an if arm, not directly in a block.
  const module = binaryen.parseText(`(module
    (func $f (export "f") (param $n i32) (result i32)
      (local $t1 i32) (local $t2 i32) (local $carry i32) (local $zero i32) (local $inner i32) (local $i i32)
      (local.set $t1 (i32.mul (local.get $n) (i32.const 3)))
      (local.set $i (i32.add (local.get $t1) (local.get $zero)))
      (local.set $t2 (i32.add (local.get $i) (i32.const 1)))
      (local.set $i (i32.sub (local.get $t2) (i32.const 1)))
      (block $done (loop $next
        (local.set $zero (i32.add (local.get $zero) (local.get $carry)))
        (local.set $carry (i32.add (local.get $i) (i32.const 2)))
        (if (local.get $n) (then (local.set $inner (local.get $carry))))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (br_if $next (i32.gt_s (local.get $i) (i32.const 0)))))
      (i32.add (local.get $zero) (local.get $inner))))`);
  try {
    const run = (bytes: Uint8Array, n: number) =>
      (
        new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>)).exports.f as (
          n: number,
        ) => number
      )(n);
    const before = module.emitBinary();
    const func = module.getFunction('f');
    expect(Func.getNumLocals(func)).toBe(7);
    expect(fitLocals(module, func)).toBe(1);
    expect(module.validate()).toBeTruthy();
    const after = module.emitBinary();
    for (const n of [0, 1, 5, 17]) expect(run(after, n)).toBe(run(before, n));
  } finally {
    module.dispose();
  }
});
