// Alignment versioning (instrument/passes/shadow-versioning.ts): a loop whose pointers are provably
// ≡ 0 mod 4 when its entry values are runs a copy without alignment checks; any other entry runs
// the checked loop. Labels must be the same either way, whatever the alignment hints say.
import { test, expect } from 'vitest';
import binaryen from 'binaryen';
import { wat } from '../helpers/wat.js';
import { taintWat } from '../helpers/taint.js';
import { instrumentModule } from '../../instrument/pipeline.js';

const T = { timeout: 60_000 };

// Loop a stores n (as i64, align hint 8) at base + i*stride for i < 4; loop b runs as many times as
// the low 4 bits of the byte at base + 3*stride (n), so its exit condition must carry n's label. (A
// byte load reads the label word directly: labels an unchecked misaligned store put at the wrong
// place would show.)
// Loop c reads the i64 at base + 4*stride, never written: no label when the accesses are aligned.
/** A loop running (bound & 15) times. */
const countTo = (name: string, bound: string) => `
    (local.set $i (i32.const 0))
    (block $${name}_exit (loop $${name}
      (br_if $${name}_exit (i32.ge_s (local.get $i) (i32.and ${bound} (i32.const 15))))
      (local.set $acc (i32.add (local.get $acc) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $${name})))`;

const strided = `(module (memory (export "memory") 1)
  (func (export "run") (param $n i32) (param $base i32) (param $stride i32) (result i32)
    (local $i i32) (local $p i32) (local $acc i32)
    (local.set $p (local.get $base))
    (block $a_exit (loop $a
      (br_if $a_exit (i32.ge_s (local.get $i) (i32.const 4)))
      (i64.store align=8 (local.get $p) (i64.extend_i32_u (local.get $n)))
      (local.set $p (i32.add (local.get $p) (local.get $stride)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $a)))
    ${countTo('b', '(i32.load8_u (i32.add (local.get $base) (i32.mul (local.get $stride) (i32.const 3))))')}
    ${countTo('c', '(i32.wrap_i64 (i64.load align=8 (i32.add (local.get $base) (i32.shl (local.get $stride) (i32.const 2)))))')}
    (local.get $acc)))`;

async function loopParams(base: number, stride: number): Promise<string[][]> {
  const report = await taintWat(strided, 'run', ['5', String(base), String(stride)], ['n=arg0']);
  return report.loops.map((loop) => loop.params);
}

test('aligned entry (fast copy): labels as exact as the checked loop', T, async () => {
  expect(await loopParams(1000, 8)).toEqual([[], ['n'], []]);
  expect(await loopParams(1000, 12)).toEqual([[], ['n'], []]);
});

test('misaligned base or stride despite align=8 hints: the checked loop keeps every label', T, async () => {
  for (const [base, stride] of [
    [1001, 8],
    [1002, 8],
    [1003, 12],
    [1000, 9],
    [1000, 10],
  ] as const) {
    const params = await loopParams(base, stride);
    expect(params[0]).toEqual([]);
    expect(params[1]).toEqual(['n']);
  }
});

/** Loops in the exported function `run`. */
function loopCount(bytes: Uint8Array): number {
  const module = binaryen.readBinary(bytes);
  try {
    const internal = binaryen.getExportInfo(module.getExport('run')).value;
    const body = binaryen.getFunctionInfo(module.getFunction(internal)).body;
    return (binaryen.emitText(body).match(/\(loop /g) ?? []).length;
  } finally {
    module.dispose();
  }
}

test('only loops with provable residues are versioned', T, () => {
  const versioned = instrumentModule(wat(strided), 'fixture.wasm', ['taint']).bytes;
  // a and c each get an unchecked copy; b has no label access of 4 bytes or more.
  expect(loopCount(versioned)).toBe(loopCount(wat(strided)) + 2);
  // A pointer loaded from memory (list walk) has no provable residue: nothing to version.
  const listWalk = wat(`(module (memory 1)
    (func (export "run") (param $p i32) (result i32) (local $sum i32)
      (block $done (loop $next
        (br_if $done (i32.eqz (local.get $p)))
        (local.set $sum (i32.add (local.get $sum) (i32.load offset=4 (local.get $p))))
        (local.set $p (i32.load (local.get $p)))
        (br $next)))
      (local.get $sum)))`);
  expect(loopCount(instrumentModule(listWalk, 'fixture.wasm', ['taint']).bytes)).toBe(loopCount(listWalk));
});
