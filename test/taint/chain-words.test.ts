// Label chains of an innermost loop read one word joined before it (instrument/passes/taint-chain-words.ts),
// end to end: a loop walking memory with a stride carrying `s` from a start carrying `n`. The pointer's
// label takes `s` in the first step, so the first element read carries `n` alone and every later one
// `n` and `s`: the sum's label, counted to by a last loop, tells a one-trip run from a longer one. The
// pass runs the first iteration before the loop; a loop that started from the stepped label, or
// never stepped it, would give the wrong one of the two.
import { expect, test } from 'vitest';
import { taintWat } from '../helpers/taint.js';

const walk = `(module (memory (export "memory") 1)
  (func (export "run") (param $n i32) (param $s i32) (param $len i32) (result i32)
    (local $p i32) (local $q i32) (local $i i32) (local $acc i64) (local $j i32) (local $lim i32)
    ;; n >> 31 is 0 for the n given: the addresses stay put, their labels carry n.
    (local.set $p (i32.add (i32.const 1024) (i32.shl (i32.shr_u (local.get $n) (i32.const 31)) (i32.const 3))))
    (local.set $q (i32.const 16384))
    (loop $walk
      (local.set $acc (i64.add (local.get $acc) (i64.load (local.get $p))))
      (i64.store (local.get $q) (local.get $acc))
      (local.set $p (i32.add (local.get $p) (i32.shl (local.get $s) (i32.const 3))))
      (local.set $q (i32.add (local.get $q) (i32.const 8)))
      (br_if $walk (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $len))))
    (local.set $lim (i32.and (i32.wrap_i64 (local.get $acc)) (i32.const 15)))
    (block $done (loop $count
      (br_if $done (i32.ge_s (local.get $j) (local.get $lim)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $count)))
    (local.get $j)))`;

async function sumParams(len: number): Promise<string[]> {
  const report = await taintWat(walk, 'run', ['7', '2', String(len)], ['n=arg0', 's=arg1']);
  return [...report.loops.at(-1)!.params].sort();
}

test(
  'a stepped pointer label: the first element without the step, the later ones with it',
  { timeout: 60_000 },
  async () => {
    expect(await sumParams(1)).toEqual(['n']);
    expect(await sumParams(2)).toEqual(['n', 's']);
    expect(await sumParams(9)).toEqual(['n', 's']);
  },
);
