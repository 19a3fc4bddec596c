// Counters in memory indexed by a value (issue 24, cause 3; instrument/passes/taint-counters.ts):
// `count[r]++` and then a loop to `count[r]`, the shape of LULESH's regElemSize. Under implicit flow
// with data pointer labels the count takes the index's label; a store of another value through the
// same address (`a[r] += x`) does not, and data flow alone (DFSan without pointer labels) stays as
// it was.
import { expect, test } from 'vitest';
import { taintWat } from '../helpers/taint.js';
import type { ImplicitFlow, PointerLabels } from '../../instrument/passes/taint-semantics.js';

const T = { timeout: 60_000 };

/** run(n, r, x): n times count[r] += STEP, then a loop to count[r]; returns its iterations. */
const counted = (step: string) => `(module (memory (export "memory") 1)
  (func (export "run") (param $n i32) (param $r i32) (param $x i32) (result i32)
    (local $i i32) (local $j i32) (local $cell i32)
    (local.set $cell (i32.add (i32.const 64) (i32.shl (i32.and (local.get $r) (i32.const 7)) (i32.const 2))))
    (block $done (loop $fill
      (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
      (i32.store (local.get $cell) (i32.add (i32.load (local.get $cell)) ${step}))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $fill)))
    (block $out (loop $use
      (br_if $out (i32.ge_s (local.get $j) (i32.load (local.get $cell))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $use)))
    (local.get $j)))`;

async function useLoopParams(
  text: string,
  implicitFlow: ImplicitFlow,
  pointerLabels: PointerLabels,
): Promise<string[]> {
  const report = await taintWat(text, 'run', ['4', '3', '1'], ['n=arg0', 'r=arg1', 'x=arg2'], {
    implicitFlow,
    pointerLabels,
  });
  expect(report.loops).toHaveLength(2);
  return report.loops[1]!.params;
}

test('count[r]++: the loop to the count depends on r (implicit flow, data pointer labels)', T, async () => {
  expect(await useLoopParams(counted('(i32.const 1)'), 'on', 'data')).toEqual(['r']);
});

test('count[r] -= 1 and 2 + count[r] are counters too', T, async () => {
  const down = counted('(i32.const -1)').replace(
    '(i32.add (i32.load (local.get $cell)) (i32.const -1))',
    '(i32.sub (i32.load (local.get $cell)) (i32.const 1))',
  );
  expect(await useLoopParams(down, 'on', 'data')).toEqual(['r']);
  const swapped = counted('(i32.const 2)').replace(
    '(i32.add (i32.load (local.get $cell)) (i32.const 2))',
    '(i32.add (i32.const 2) (i32.load (local.get $cell)))',
  );
  expect(await useLoopParams(swapped, 'on', 'data')).toEqual(['r']);
});

test('a[r] += x is not a counter: the value carries x, not the index', T, async () => {
  expect(await useLoopParams(counted('(local.get $x)'), 'on', 'data')).toEqual(['x']);
});

test('data flow alone is unchanged (no index label); join semantics carry the index on the load', T, async () => {
  expect(await useLoopParams(counted('(i32.const 1)'), 'off', 'data')).toEqual([]);
  expect(await useLoopParams(counted('(i32.const 1)'), 'off', 'join')).toEqual(['r']);
});
