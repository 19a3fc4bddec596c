// The taint pass's own cleanup before Binaryen's optimizer (issue 27): labels proven 0 throughout
// folded away (instrument/passes/taint-clean.ts), reads of copies redirected to their sources and
// single-read temporaries sunk into their readers (instrument/passes/taint-copies.ts), invariant joins
// hoisted in front of their loop (instrument/passes/taint-hoist.ts). Each rewrite
// must keep what the function computes, and must not move a value past a trap or an effect.
import { test, expect } from 'vitest';
import binaryen from 'binaryen';
import { foldCleanLabels } from '../../instrument/passes/taint-clean.js';
import { propagateCopies, sinkTemporaries } from '../../instrument/passes/taint-copies.js';
import { hoistInvariantJoins } from '../../instrument/passes/taint-hoist.js';
import { shadowMemory, placeShadow } from '../../instrument/passes/shadow-memory.js';
import { Func } from '../../instrument/ir.js';

function withModule(text: string, rewrite: (module: binaryen.Module, func: number) => void): string {
  const module = binaryen.parseText(text);
  try {
    rewrite(module, module.getFunction('f'));
    expect(module.validate()).toBeTruthy();
    return module.emitText();
  } finally {
    module.dispose();
  }
}

async function run(text: string, args: number[]): Promise<number> {
  const module = binaryen.parseText(text);
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(module.emitBinary() as Uint8Array<ArrayBuffer>));
    return (instance.exports.f as (...a: number[]) => number)(...args);
  } finally {
    module.dispose();
  }
}

const wordShadow = () => shadowMemory(placeShadow('word', { base: 0, bytes: 65536 }, 65536));

test('a label every assignment of which is 0 or a join of such labels folds away; one assigned a parameter stays', async () => {
  const text = `(module (func $f (export "f") (param $p i32) (result i32) (local $clean i32) (local $join i32) (local $dirty i32)
    (local.set $clean (i32.const 0))
    (local.set $join (i32.or (local.get $clean) (local.get $join)))
    (local.set $dirty (i32.or (local.get $join) (local.get $p)))
    (i32.or (i32.or (local.get $dirty) (local.get $join)) (local.get $clean))))`;
  const out = withModule(text, foldCleanLabels);
  expect(out).not.toContain('local.get $clean');
  expect(out).not.toContain('local.get $join');
  expect(out).toContain('local.get $dirty');
  expect(await run(out, [6])).toBe(await run(text, [6]));
});

test('a read of a copy reads its source until either is written again; the dead copy is dropped', async () => {
  const text = `(module (func $f (export "f") (param $a i32) (result i32) (local $c i32) (local $d i32)
    (local.set $c (local.get $a))
    (local.set $d (i32.add (local.get $c) (i32.const 1)))
    (local.set $a (i32.const 100))
    (i32.add (local.get $d) (local.get $c))))`;
  const out = withModule(text, (module, func) => propagateCopies(module, func));
  expect(out).toContain('(i32.add\n    (local.get $a)\n    (i32.const 1)');
  // After $a is overwritten the copy still holds the old value: its last read must stay.
  expect(out).toMatch(/local\.get \$d\)\n\s*\(local\.get \$c\)/);
  expect(await run(out, [5])).toBe(await run(text, [5]));
});

test('a temporary read once sinks into its reader past inert code, never past a trap or a store', async () => {
  const text = `(module (memory 1) (func $f (export "f") (param $p i32) (param $q i32) (result i32) (local $t i32) (local $u i32) (local $v i32) (local $w i32)
    (local.set $t (i32.load (local.get $p)))
    (local.set $u (i32.add (local.get $q) (i32.const 1)))
    (local.set $v (i32.mul (local.get $t) (local.get $u)))
    (local.set $w (i32.load offset=4 (local.get $p)))
    (local.set $u (i32.div_u (local.get $q) (local.get $p)))
    (i32.store (local.get $q) (local.get $u))
    (i32.add (local.get $v) (local.get $w))))`;
  const out = withModule(text, (module, func) => sinkTemporaries(module, func, wordShadow()));
  // $t's load moved past the pure add into the multiply.
  expect(out).not.toContain('local.set $t');
  // $w's load would have to pass a division (a trap) and a store: it stays where it was.
  expect(out).toContain('local.set $w');
  expect(await run(out, [8, 3])).toBe(await run(text, [8, 3]));
  const trap = await run(text, [0, 3]).then(
    () => 'no trap',
    (error: Error) => error.message,
  );
  await expect(run(out, [0, 3])).rejects.toThrow(trap);
});

test('an invariant join and an accumulator of it run once before their loop; a join read before it in the loop stays', async () => {
  const text = `(module (func $f (export "f") (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $inv i32) (local $acc i32) (local $late i32) (local $i i32)
    (loop $l
      (local.set $inv (i32.or (local.get $a) (local.get $b)))
      (local.set $acc (i32.or (local.get $acc) (local.get $inv)))
      (local.set $i (i32.add (local.get $i) (i32.add (local.get $late) (i32.const 1))))
      (local.set $late (i32.or (local.get $a) (i32.const 0)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (i32.add (local.get $acc) (local.get $i))))`;
  const out = withModule(text, (module, func) => hoistInvariantJoins(module, Func.getBody(func)));
  const loop = out.slice(out.indexOf('(loop'));
  expect(loop).not.toContain('local.set $inv');
  expect(loop).not.toContain('local.set $acc');
  expect(loop).toContain('local.set $late');
  for (const args of [
    [1, 2, 5],
    [4, 0, 0],
    [3, 8, 40],
  ])
    expect(await run(out, args)).toBe(await run(text, args));
});
