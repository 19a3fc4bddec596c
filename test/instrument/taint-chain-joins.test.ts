// Invariant words of an innermost loop's label chains gathered before the loop
// (instrument/passes/taint-chain-joins.ts): the chain `$t = $a; $t = $t | x; $t = $t | y | $b`
// starts from one word `$a | $b` computed before the loop, and ends with the same value; a chain
// whose intermediate value something else reads keeps its words where they are.
import { describe, expect, test } from 'vitest';
import binaryen from 'binaryen';
import { gatherChainJoins } from '../../instrument/passes/taint-chain-joins.js';
import { wat } from '../helpers/wat.js';

/** `$f`: n elements, each `$t` = $a | word[i] | word[i+1] | $b, stored and summed; `between` goes after the first link. */
function fixture(between: string, first = '(local.get $a)'): Uint8Array {
  return wat(`(module
    (memory (export "memory") 1)
    (func (export "f") (param $a i32) (param $b i32) (param $n i32) (result i32)
      (local $t i32) (local $i i32) (local $acc i32)
      (loop $l
        (local.set $t ${first})
        (local.set $t (i32.or (local.get $t) (i32.load (i32.shl (local.get $i) (i32.const 2)))))
        ${between}
        (local.set $t (i32.or (i32.or (local.get $t) (i32.load offset=4 (i32.shl (local.get $i) (i32.const 2)))) (local.get $b)))
        (i32.store offset=1024 (i32.shl (local.get $i) (i32.const 2)) (local.get $t))
        (local.set $acc (i32.add (local.get $acc) (local.get $t)))
        (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
      (local.get $acc)))`);
}

function gathered(bytes: Uint8Array): { changed: number; text: string; bytes: Uint8Array } {
  const module = binaryen.readBinary(bytes);
  const changed = gatherChainJoins(module, module.getFunction('0'));
  expect(module.validate()).toBeTruthy();
  return { changed, text: module.emitText(), bytes: module.emitBinary() };
}

function run(bytes: Uint8Array, a: number, b: number, n: number): number[] {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
  const memory = new Uint32Array((instance.exports.memory as WebAssembly.Memory).buffer);
  for (let i = 0; i < 200; i++) memory[i] = (i * 2654435761) >>> (i % 29);
  const sum = (instance.exports.f as (a: number, b: number, n: number) => number)(a, b, n);
  return [sum, ...memory.slice(256, 256 + n)];
}

describe('label chains in innermost loops', () => {
  test('the invariant words of the later links join the first one, computed before the loop', () => {
    const original = fixture('');
    const after = gathered(original);
    expect(after.changed).toBe(1);
    const loop = after.text.slice(after.text.indexOf('(loop'));
    // Inside the loop neither $a nor $b is read any more.
    expect(loop).toMatch(/local\.get \$i\)/);
    expect(loop).not.toMatch(/local\.get \$a\)/);
    expect(loop).not.toMatch(/local\.get \$b\)/);
    const before = after.text.slice(0, after.text.indexOf('(loop'));
    expect(before).toMatch(/i32\.or\s*\(local\.get \$a\)\s*\(local\.get \$b\)/);
    for (const [a, b, n] of [
      [0, 0, 5],
      [1, 0x80, 17],
      [0x10000, 3, 1],
      [-1, 7, 40],
    ] as const)
      expect(run(after.bytes, a, b, n)).toEqual(run(original, a, b, n));
  });

  test('a chain whose intermediate value is read keeps its words', () => {
    const after = gathered(fixture('(i32.store offset=2048 (i32.shl (local.get $i) (i32.const 2)) (local.get $t))'));
    expect(after.changed).toBe(0);
  });

  test('a chain whose first link reads more than invariant words keeps its words', () => {
    const after = gathered(fixture('', '(i32.or (local.get $a) (i32.load offset=512 (local.get $i)))'));
    expect(after.changed).toBe(0);
  });

  test('a chain with a branch between its links keeps its words', () => {
    const after = gathered(fixture('(br_if $l (i32.eqz (local.get $n)))'));
    expect(after.changed).toBe(0);
  });
});
