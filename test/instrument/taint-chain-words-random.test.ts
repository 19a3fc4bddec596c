// Random loops for instrument/passes/taint-chain-words.ts: bodies of `i32.or` chains over loaded
// words, invariant words, pointer labels stepped by `$p = $p | $s`, temporaries and accumulators,
// with stores of any of them and a random set of locals read after the loop. The rewritten module
// must store and return exactly what the original does for one trip and for several. (The
// differential fuzzer's programs rarely have this shape.)
import { expect, test } from 'vitest';
import binaryen from 'binaryen';
import { joinChainWords } from '../../instrument/passes/taint-chain-words.js';
import { wat } from '../helpers/wat.js';

/** xorshift32: the same programs every run. */
function random(seed: number): (n: number) => number {
  let x = seed || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

const INVARIANTS = ['$w0', '$w1', '$w2', '$w3'];
const POINTERS = ['$p0', '$p1'];
const STEPS = ['$s0', '$s1'];
const TEMPS = ['$t0', '$t1', '$t2', '$t3', '$t4'];
const ACCS = ['$a0', '$a1'];

function program(seed: number): string {
  const pick = random(seed);
  const one = <T>(list: T[]): T => list[pick(list.length)]!;
  const leaf = (): string => {
    switch (pick(5)) {
      case 0:
        return `(i32.load offset=${4 * pick(64)} (i32.shl (local.get $i) (i32.const 2)))`;
      case 1:
        return `(local.get ${one(INVARIANTS)})`;
      case 2:
        return `(local.get ${one(POINTERS)})`;
      case 3:
        return `(local.get ${one(TEMPS)})`;
      default:
        return `(local.get ${one(ACCS)})`;
    }
  };
  const tree = (leaves: string[]): string => leaves.reduce((acc, l) => `(i32.or ${acc} ${l})`);
  const body: string[] = [];
  let slot = 0;
  const updated = new Set<number>();
  for (let k = 0, count = 6 + pick(10); k < count; k++) {
    const kind = pick(10);
    if (kind < 5) {
      const t = one(TEMPS);
      const leaves = Array.from({ length: 1 + pick(3) }, leaf);
      if (pick(2) === 0) leaves.splice(pick(leaves.length + 1), 0, `(local.get ${t})`);
      body.push(`(local.set ${t} ${tree(leaves)})`);
    } else if (kind < 7) {
      const a = one(ACCS);
      body.push(`(local.set ${a} ${tree([`(local.get ${a})`, ...Array.from({ length: 1 + pick(2) }, leaf)])})`);
    } else if (kind < 9) {
      body.push(
        `(i32.store offset=${8192 + 4 * slot++} (i32.shl (local.get $i) (i32.const 6)) (local.get ${one([...TEMPS, ...ACCS, ...POINTERS])}))`,
      );
    } else {
      const p = pick(2);
      // Mostly once per iteration; sometimes twice (then it is no pointer label).
      if (!updated.has(p) || pick(4) === 0) {
        updated.add(p);
        body.push(`(local.set ${POINTERS[p]} (i32.or (local.get ${POINTERS[p]}) (local.get ${STEPS[p]})))`);
      }
    }
  }
  const after = [...TEMPS, ...ACCS, ...POINTERS].filter(() => pick(3) === 0);
  const result = after.reduce(
    (acc, l) => `(i32.add (i32.mul ${acc} (i32.const 31)) (local.get ${l}))`,
    '(i32.const 7)',
  );
  const loop = `(local.set $i (i32.const 0))
      (loop $l
        ${body.join('\n        ')}
        (br_if $l (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))`;
  // Around the loop, sometimes: a temporary written on one path after it only, and an outer loop
  // reading a temporary before the inner loop writes it again (both must see what the loop left).
  const oddTrips = '(i32.and (local.get $n) (i32.const 1))';
  const kill = pick(2) === 0 ? `(if ${oddTrips} (then (local.set ${one(TEMPS)} (i32.const 5))))` : '';
  const outerCount = '(i32.ne (local.tee $o (i32.add (local.get $o) (i32.const 1))) (i32.const 3))';
  const nest =
    pick(2) === 0
      ? `(loop $outer
        ${TEMPS.map((t, k) => `(i32.store offset=${12288 + 4 * k} (i32.mul (local.get $o) (i32.const 20)) (local.get ${t}))`).join(' ')}
        ${loop}
        ${kill}
        (br_if $outer ${outerCount}))`
      : `${loop}
      ${kill}`;
  return `(module
    (memory (export "memory") 1)
    (func (export "f") (param $w0 i32) (param $w1 i32) (param $w2 i32) (param $w3 i32) (param $s0 i32) (param $s1 i32) (param $n i32) (result i32)
      (local $i i32) (local $o i32) (local $p0 i32) (local $p1 i32) (local $t0 i32) (local $t1 i32) (local $t2 i32) (local $t3 i32) (local $t4 i32) (local $a0 i32) (local $a1 i32)
      (local.set $p0 (i32.const 0x100000))
      (local.set $p1 (i32.const 0x200000))
      ${nest}
      ${result}))`;
}

function run(bytes: Uint8Array, n: number): number[] {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
  const memory = new Uint32Array((instance.exports.memory as WebAssembly.Memory).buffer);
  for (let i = 0; i < 2048; i++) memory[i] = (1 << (i % 13)) << 8;
  const f = instance.exports.f as (...args: number[]) => number;
  const result = f(0x1, 0x2, 0x4, 0x8, 0x10, 0x20, n);
  return [result, ...memory.slice(2048, 2048 + 16 * n), ...memory.slice(3072, 3072 + 15)];
}

test('random label chains: the same stores and results after the rewrite', () => {
  let changed = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const original = wat(program(seed));
    const module = binaryen.readBinary(original);
    changed += joinChainWords(module, module.getFunction('0'));
    expect(module.validate()).toBeTruthy();
    const rewritten = module.emitBinary();
    for (const n of [1, 2, 3, 6]) expect(run(rewritten, n), `seed ${seed}, ${n} trips`).toEqual(run(original, n));
  }
  // Most of these programs have a shape the pass rewrites (198 of 300 when written).
  expect(changed).toBeGreaterThan(150);
});
