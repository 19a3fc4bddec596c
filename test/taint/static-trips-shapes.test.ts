// Static trip counts on the loop shapes of unoptimised and `while (1)` code (issue #10): the exit
// as a forward br_if over an unconditional exit, a break at the top, middle and bottom, and three
// sequential loops that the compiler emitted as a nest.
import { expect, test } from 'vitest';
import { wat } from '../helpers/wat.js';
import { siteTableOf } from '../../instrument/pipeline.js';
import { SEQUENTIAL_NEST } from '../helpers/loop-shapes.js';

function table(body: string) {
  const bytes = wat(`(module (func (export "run") (param $n i32) (result i32) (local $i i32) (local $acc i32)
    ${body}
    (local.get $acc)))`);
  return siteTableOf(bytes, 'fixture.wasm').loops;
}

const work = '(local.set $acc (i32.add (i32.mul (local.get $acc) (i32.const 3)) (local.get $i)))';

test('unrotated: loop { block $b { br_if $b (i < 10); br $out } body; br $loop } runs 10 times', () => {
  const [loop] = table(`(block $out (loop $l
    (block $b (br_if $b (i32.lt_s (local.get $i) (i32.const 10))) (br $out))
    ${work}
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (br $l)))`);
  expect(loop).toMatchObject({ topTested: true, staticTrips: 10 });
});

test('while (1) with the break at the top, middle and bottom', () => {
  const top = table(`(block $out (loop $l
    (br_if $out (i32.ge_s (local.get $i) (i32.const 7)))
    ${work} (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l)))`);
  expect(top[0]).toMatchObject({ topTested: true, staticTrips: 7 });
  const middle = table(`(block $out (loop $l
    ${work}
    (br_if $out (i32.ge_s (local.get $i) (i32.const 7)))
    (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l)))`);
  // The header runs once per started body: 8 (the last one stops half way), as the run counts it.
  expect(middle[0]).toMatchObject({ topTested: false, staticTrips: 8 });
  const bottom = table(`(block $out (loop $l
    ${work}
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (br_if $out (i32.ge_s (local.get $i) (i32.const 7)))
    (br $l)))`);
  expect(bottom[0]).toMatchObject({ topTested: false, staticTrips: 7 });
});

test('three sequential loops emitted as a nest: siblings, each with its own trip count', () => {
  const bytes = wat(
    `(module ${SEQUENTIAL_NEST.replaceAll('(local.get $n)', '(i32.const 3)').replaceAll('(local.get $m)', '(i32.const 4)').replaceAll('(local.get $k)', '(i32.const 5)')})`,
  );
  const loops = siteTableOf(bytes, 'fixture.wasm').loops;
  expect(loops.map((l) => [l.parent, l.depth])).toEqual([
    [null, 1],
    [null, 1],
    [null, 1],
  ]);
  expect(loops.map((l) => l.staticTrips)).toEqual([3, 4, 5]);
});
