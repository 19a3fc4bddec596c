// One word per label chain in an innermost loop (instrument/passes/taint-chain-words.ts): with the
// first iteration run before the loop, pointer labels stepped once per iteration (`$p = $p | $sp`)
// are invariant in it, and they and the invariant words leave the loop; each chain reads one word
// joined between the two. The values stored, returned and left in every local read after the loop
// stay the same, for one trip (the first iteration sees the pointer labels unstepped) and for many.
import { describe, expect, test } from 'vitest';
import binaryen from 'binaryen';
import { joinChainWords } from '../../instrument/passes/taint-chain-words.js';
import { wat } from '../helpers/wat.js';

interface Variant {
  /** Read after the loop besides $p, $q and $acc (a temporary whose last value must survive). */
  after?: string;
  /** Statements put first in the body and right before the back edge. */
  head?: string;
  tail?: string;
}

/**
 * trmm's fast loop in small: two elements per iteration, each label `L(A) | $p | L(B) | $q` joined
 * into the accumulator `$acc` with an invariant word, through temporaries.
 */
function fixture({ after = '(i32.const 0)', head = '', tail = '' }: Variant = {}): Uint8Array {
  const at = (offset: number) => `(i32.load offset=${offset} (i32.shl (local.get $i) (i32.const 3)))`;
  const to = (offset: number) => `(i32.add (i32.const ${offset}) (i32.shl (local.get $i) (i32.const 3)))`;
  return wat(`(module
    (memory (export "memory") 1)
    (func (export "f") (param $p i32) (param $q i32) (param $sp i32) (param $sq i32) (param $c1 i32) (param $c2 i32) (param $n i32) (result i32)
      (local $i i32) (local $a i32) (local $b i32) (local $acc i32) (local $t1 i32) (local $t2 i32)
      (loop $l
        ${head}
        (local.set $a (i32.or ${at(0)} (local.get $p)))
        (local.set $b (i32.or ${at(1024)} (local.get $q)))
        (local.set $a (i32.or (local.get $a) (local.get $b)))
        (local.set $acc (i32.or (i32.or (local.get $a) (local.get $acc)) (local.get $c1)))
        (i32.store ${to(8192)} (local.get $acc))
        (local.set $t1 (i32.or ${at(4)} (local.get $p)))
        (local.set $t2 (i32.or ${at(1028)} (local.get $q)))
        (local.set $t1 (i32.or (local.get $t1) (local.get $t2)))
        (local.set $acc (i32.or (i32.or (local.get $t1) (local.get $acc)) (local.get $c2)))
        (i32.store ${to(8196)} (local.get $acc))
        (local.set $p (i32.or (local.get $p) (local.get $sp)))
        (local.set $q (i32.or (local.get $sq) (local.get $q)))
        ${tail}
        (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
      (i32.xor
        (i32.add (i32.mul (local.get $p) (i32.const 65599)) (i32.add (i32.mul (local.get $q) (i32.const 31)) (local.get $acc)))
        ${after})))`);
}

function joined(bytes: Uint8Array): { changed: number; added: number; text: string; loop: string; bytes: Uint8Array } {
  const module = binaryen.readBinary(bytes);
  const func = module.getFunction('0');
  const locals = binaryen.getFunctionInfo(func).vars.length;
  const changed = joinChainWords(module, func);
  expect(module.validate()).toBeTruthy();
  const text = module.emitText();
  const added = binaryen.getFunctionInfo(func).vars.length - locals;
  return {
    changed,
    added,
    text,
    loop: text.slice(text.indexOf('(loop'), text.indexOf('(br_if')),
    bytes: module.emitBinary(),
  };
}

/** A store of `value` to a third array (the runs compare it too). */
const record = (value: string) =>
  `(i32.store (i32.add (i32.const 12288) (i32.shl (local.get $i) (i32.const 2))) ${value})`;

/** Every argument a different bit, so that each word a label misses or gains shows. */
const ARGS = { p: 0x1, q: 0x2, sp: 0x4, sq: 0x8, c1: 0x10, c2: 0x20 };

function run(bytes: Uint8Array, n: number): number[] {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
  const memory = new Uint32Array((instance.exports.memory as WebAssembly.Memory).buffer);
  for (let i = 0; i < 1024; i++) memory[i] = (1 << (8 + (i % 23))) | (i & 0xc0);
  const f = instance.exports.f as (...args: number[]) => number;
  const result = f(ARGS.p, ARGS.q, ARGS.sp, ARGS.sq, ARGS.c1, ARGS.c2, n);
  return [result, ...memory.slice(2048, 2048 + 2 * n), ...memory.slice(3072, 3072 + n)];
}

function expectSameRuns(original: Uint8Array, rewritten: Uint8Array): void {
  for (const n of [1, 2, 3, 17]) expect(run(rewritten, n)).toEqual(run(original, n));
}

describe('label chain words joined for an innermost loop', () => {
  test('pointer labels and invariant words leave the loop; one word per chain', () => {
    const original = fixture();
    const after = joined(original);
    expect(after.changed).toBe(1);
    // Neither the pointer labels, their steps nor the invariant words are read in the loop.
    for (const local of ['$p', '$q', '$sp', '$sq', '$c1', '$c2'])
      expect(after.loop).not.toContain(`local.get ${local})`);
    expect(after.loop).not.toMatch(/local\.set \$p\b/);
    // One word per chain.
    expect(after.added).toBe(2);
    expectSameRuns(original, after.bytes);
  });

  test('a temporary read after the loop keeps its value', () => {
    const original = fixture({ after: '(i32.mul (local.get $t1) (i32.const 7))' });
    const after = joined(original);
    expect(after.changed).toBe(1);
    // `$t1 = $t1 | $t2` is a chain of its own: its value is what the read after the loop sees.
    expect(after.added).toBe(3);
    expectSameRuns(original, after.bytes);
  });

  test('a temporary written again after the loop before it is read joins its chain', () => {
    const original = fixture({ after: '(block (result i32) (local.set $t1 (local.get $n)) (local.get $t1))' });
    const after = joined(original);
    expect(after.added).toBe(2);
    expectSameRuns(original, after.bytes);
  });

  test('a temporary the next iteration reads before writing keeps its value', () => {
    const original = fixture({ head: record('(local.get $t1)') });
    const after = joined(original);
    expect(after.changed).toBe(1);
    expectSameRuns(original, after.bytes);
  });

  test('a pointer label read after its update reads the same word', () => {
    // After the first iteration the update changes nothing: the loop has none.
    const original = fixture({
      tail: `(local.set $b (i32.or (i32.load offset=2000 (local.get $i)) (local.get $p))) ${record('(local.get $b)')}`,
    });
    const after = joined(original);
    expect(after.changed).toBe(1);
    expect(after.loop).not.toMatch(/local\.set \$p\b/);
    expectSameRuns(original, after.bytes);
  });

  test('a pointer label read outside its chains is read in the loop as an invariant', () => {
    const original = fixture({ tail: record('(local.get $p)') });
    const after = joined(original);
    expect(after.changed).toBe(1);
    expect(after.loop).not.toMatch(/local\.set \$p\b/);
    expect(after.loop).toContain('local.get $p)');
    expectSameRuns(original, after.bytes);
  });

  test('without pointer labels, the invariant words of chains that start from a varying value gather', () => {
    const original = wat(`(module
      (memory (export "memory") 1)
      (func (export "f") (param $p i32) (param $q i32) (param $sp i32) (param $sq i32) (param $c1 i32) (param $c2 i32) (param $n i32) (result i32)
        (local $i i32) (local $t i32)
        (loop $l
          (local.set $t (i32.or (i32.load (i32.shl (local.get $i) (i32.const 3))) (local.get $c1)))
          (local.set $t (i32.or (i32.or (local.get $t) (i32.load offset=4 (i32.shl (local.get $i) (i32.const 3)))) (local.get $c2)))
          ${record('(local.get $t)')}
          (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
        (local.get $t)))`);
    const after = joined(original);
    expect(after.changed).toBe(1);
    expect(after.added).toBe(1);
    for (const local of ['$c1', '$c2']) expect(after.loop).not.toContain(`local.get ${local})`);
    // Nothing is peeled: one copy of the body.
    expect(after.text.match(/i32\.load offset=4/g)).toHaveLength(1);
    expectSameRuns(original, after.bytes);
  });

  test('a temporary an enclosing loop reads before the loop writes it again keeps its value', () => {
    // `$t0` folded into `$t1`'s chain would gather `$w0 | $w1` into one word: not here, the value
    // `$t0` leaves is read by the next outer iteration.
    const original = wat(`(module
      (memory (export "memory") 1)
      (func (export "f") (param $w0 i32) (param $w1 i32) (param $n i32) (result i32)
        (local $i i32) (local $o i32) (local $t0 i32) (local $t1 i32)
        (loop $outer
          (i32.store offset=12288 (i32.shl (local.get $o) (i32.const 2)) (local.get $t0))
          (local.set $i (i32.const 0))
          (loop $l
            (local.set $t0 (i32.or (i32.load (i32.shl (local.get $i) (i32.const 2))) (local.get $w0)))
            (local.set $t1 (i32.or (i32.or (local.get $t0) (i32.load offset=4 (i32.shl (local.get $i) (i32.const 2)))) (local.get $w1)))
            (i32.store offset=8192 (i32.shl (local.get $i) (i32.const 2)) (local.get $t1))
            (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
          (br_if $outer (i32.ne (local.tee $o (i32.add (local.get $o) (i32.const 1))) (i32.const 3))))
        (local.get $t1)))`);
    const after = joined(original);
    expect(after.changed).toBe(0);
  });

  test('a loop with a branch besides its back edge is left alone', () => {
    const after = joined(fixture({ tail: '(br_if $l (i32.eqz (local.get $n)))' }));
    expect(after.changed).toBe(0);
  });
});
