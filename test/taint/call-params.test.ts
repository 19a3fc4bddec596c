// Per-call label work (issue 27): argument labels of calls to callees only direct calls reach
// travel as extra parameters (instrument/passes/taint-call-params.ts), and a small function's
// alignment checks are versioned once at its entry (versionAlignedFunction in
// instrument/passes/shadow-versioning.ts). Labels must be what the global-passing, checked code
// gives, for aligned and misaligned pointers alike.
import { test, expect } from 'vitest';
import binaryen from 'binaryen';
import { wat } from '../helpers/wat.js';
import { taintWat } from '../helpers/taint.js';
import { instrumentModule } from '../../instrument/pipeline.js';

const T = { timeout: 60_000 };

// `run` stores n (i64) at base, 0 at base + 8; `$sum2` (a straight-line leaf, two 8-byte loads
// through its pointer parameters) adds them; `$plus` is an accessor-like leaf whose result label
// is its argument's. Loop a runs `$sum2(base, base + 8) & 7` times (n's label comes through
// memory), loop b `$plus(k, 1) & 7` times (k's label comes through the argument), loop c a
// constant 3 times through `$plus(2, 1)`.
const calls = `(module (memory (export "memory") 1)
  (func $sum2 (param $p i32) (param $q i32) (result i32)
    (i32.wrap_i64 (i64.add (i64.load (local.get $p)) (i64.load (local.get $q)))))
  (func $plus (param $x i32) (param $y i32) (result i32)
    (i32.add (local.get $x) (local.get $y)))
  (func (export "run") (param $n i32) (param $k i32) (param $base i32) (result i32)
    (local $i i32) (local $acc i32) (local $bound i32)
    (i64.store (local.get $base) (i64.extend_i32_u (local.get $n)))
    (i64.store offset=8 (local.get $base) (i64.const 0))
    (local.set $bound (i32.and (call $sum2 (local.get $base) (i32.add (local.get $base) (i32.const 8))) (i32.const 7)))
    (block $a_exit (loop $a
      (br_if $a_exit (i32.ge_s (local.get $i) (local.get $bound)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $a)))
    (local.set $bound (i32.and (call $plus (local.get $k) (i32.const 1)) (i32.const 7)))
    (local.set $i (i32.const 0))
    (block $b_exit (loop $b
      (br_if $b_exit (i32.ge_s (local.get $i) (local.get $bound)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $b)))
    (local.set $bound (call $plus (i32.const 2) (i32.const 1)))
    (local.set $i (i32.const 0))
    (block $c_exit (loop $c
      (br_if $c_exit (i32.ge_s (local.get $i) (local.get $bound)))
      (local.set $acc (i32.add (local.get $acc) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $c)))
    (i32.add (local.get $acc) (local.get $i))))`;

test('labels through parameters and through a versioned leaf, aligned or not', T, async () => {
  for (const base of [1000, 1001, 1002, 1004]) {
    const report = await taintWat(calls, 'run', ['5', '3', String(base)], ['n=arg0', 'k=arg1']);
    expect(report.loops.map((loop) => loop.params)).toEqual([['n'], ['k'], []]);
  }
});

test('a direct-only callee takes the labels it reads as parameters; its entry is versioned', () => {
  const module = binaryen.readBinary(instrumentModule(wat(calls), 'fixture.wasm', ['taint']).bytes);
  try {
    const params = (name: string) => binaryen.expandType(binaryen.getFunctionInfo(module.getFunction(name)).params);
    // Both read both argument labels ($sum2's pointers' labels join what they load).
    expect(params('plus')).toHaveLength(4);
    expect(params('sum2')).toHaveLength(4);
    const text = module.emitText();
    const sum2 = text.slice(text.indexOf('(func $sum2'), text.indexOf('(func $plus'));
    const plus = text.slice(text.indexOf('(func $plus'), text.indexOf('(func $2'));
    // The exported `run` still reads its labels from the globals (--param sets them there).
    expect(sum2 + plus).not.toContain('global.get $taintlens$arg');
    // $sum2's two checked label loads run unchecked when (p | q) & 3 == 0.
    expect(sum2).toMatch(/i32\.eqz\s*\(i32\.and\s*\(i32\.or\s*\(local\.get \$0\)\s*\(local\.get \$1\)/);
  } finally {
    module.dispose();
  }
});
