// Label reads behind an alias check (instrument/passes/shadow-loop-labels.ts): an innermost loop
// whose invariant address's label is read once before it, or whose labels one iteration reads the
// next reads again, when the loop's stores provably miss those labels for the whole trip;
// otherwise the loop as it was. Each fixture runs with its addresses apart and overlapping: a
// wrong hoist or carry would drop a label the report must show.
import { test, expect } from 'vitest';
import binaryen from 'binaryen';
import { wat } from '../helpers/wat.js';
import { taintWat } from '../helpers/taint.js';
import { instrumentModule } from '../../instrument/pipeline.js';

const T = { timeout: 60_000 };

// c[i] = *a + b[i] for i < len, then a loop counting to the low 4 bits of c[len − 1]. *a carries n,
// b[k] carries m (the others nothing). When a overlaps c[k], *a takes m's label at iteration k, so
// c[len − 1] carries m too; a label of *a read once before the loop would miss it.
const hoist = `(module (memory (export "memory") 1)
  (func (export "run") (param $n i32) (param $m i32) (param $a i32) (param $b i32) (param $c i32) (param $len i32) (param $k i32) (result i32)
    (local $i i32) (local $j i32) (local $lim i32)
    (i64.store (local.get $a) (i64.extend_i32_u (local.get $n)))
    (i64.store (i32.add (local.get $b) (i32.shl (local.get $k) (i32.const 3))) (i64.extend_i32_u (local.get $m)))
    (loop $copy
      (i64.store (i32.add (local.get $c) (i32.shl (local.get $i) (i32.const 3)))
        (i64.add (i64.load (local.get $a)) (i64.load (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 3))))))
      (br_if $copy (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $len))))
    (local.set $lim (i32.and (i32.wrap_i64 (i64.load (i32.add (local.get $c)
      (i32.shl (i32.sub (local.get $len) (i32.const 1)) (i32.const 3))))) (i32.const 15)))
    (block $done (loop $count
      (br_if $done (i32.ge_s (local.get $j) (local.get $lim)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $count)))
    (local.get $j)))`;

// out[i] = in[i − 1] + in[i] + in[i + 1] for 0 < i < len − 1, then a loop counting to the low 4
// bits of out[len − 2]. in[k] carries m. The labels of in[i] and in[i + 1] are those the previous
// iteration read as in[i + 1] and in[i + 2]: carried in locals when out misses in. When out
// overlaps in one element up (or in place), each iteration writes what the next reads, and m
// travels from in[k] to every later element; labels carried from before those writes would lose
// it after two elements.
const window = `(module (memory (export "memory") 1)
  (func (export "run") (param $m i32) (param $in i32) (param $out i32) (param $len i32) (param $k i32) (result i32)
    (local $p i32) (local $q i32) (local $i i32) (local $j i32) (local $lim i32)
    (i64.store (i32.add (local.get $in) (i32.shl (local.get $k) (i32.const 3))) (i64.extend_i32_u (local.get $m)))
    (local.set $p (i32.add (local.get $in) (i32.const 8)))
    (local.set $q (i32.add (local.get $out) (i32.const 8)))
    (local.set $i (i32.const 1))
    (loop $sweep
      (i64.store (local.get $q) (i64.add (i64.add
        (i64.load (i32.add (local.get $p) (i32.const -8))) (i64.load (local.get $p))) (i64.load offset=8 (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (local.set $q (i32.add (local.get $q) (i32.const 8)))
      (br_if $sweep (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.sub (local.get $len) (i32.const 1)))))
    (local.set $lim (i32.and (i32.wrap_i64 (i64.load (i32.add (local.get $out)
      (i32.shl (i32.sub (local.get $len) (i32.const 2)) (i32.const 3))))) (i32.const 15)))
    (block $done (loop $count
      (br_if $done (i32.ge_s (local.get $j) (local.get $lim)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $count)))
    (local.get $j)))`;

/** The marked parameters reaching the last loop's exit condition. */
async function countParams(text: string, args: number[], params: string[]): Promise<string[]> {
  const report = await taintWat(text, 'run', args.map(String), params);
  return [...report.loops.at(-1)!.params].sort();
}

const hoistRun = (a: number) => countParams(hoist, [5, 3, a, 4096, 8192, 16, 4], ['n=arg0', 'm=arg1']);

test('hoisted label: the loop stores elsewhere (copy taken) and over it (checked loop taken)', T, async () => {
  expect(await hoistRun(16384)).toEqual(['n']);
  // Just below c and just above its end.
  expect(await hoistRun(8192 - 8)).toEqual(['n']);
  expect(await hoistRun(8192 + 16 * 8)).toEqual(['n']);
  // Over c[2], c[4] (k), c[6] and c[15]: only c[4] is written with m's label.
  expect(await hoistRun(8192 + 2 * 8)).toEqual(['n']);
  expect(await hoistRun(8192 + 4 * 8)).toEqual(['m', 'n']);
  expect(await hoistRun(8192 + 6 * 8)).toEqual(['n']);
  expect(await hoistRun(8192 + 15 * 8)).toEqual(['n']);
  // Half over c[3] and half over c[4]: c[4]'s first word is *a's second.
  expect(await hoistRun(8192 + 4 * 8 - 4)).toEqual(['m', 'n']);
});

const windowRun = (out: number, k: number) => countParams(window, [3, 4096, out, 16, k], ['m=arg0']);

test('labels carried between iterations: out misses in (copy taken) and overlaps it (checked loop)', T, async () => {
  expect(await windowRun(8192, 5)).toEqual([]);
  expect(await windowRun(8192, 15)).toEqual(['m']);
  expect(await windowRun(8192, 13)).toEqual(['m']);
  expect(await windowRun(4096 + 16 * 8, 5)).toEqual([]);
  // One element up, in place, one element down.
  expect(await windowRun(4096 + 8, 5)).toEqual(['m']);
  expect(await windowRun(4096, 5)).toEqual(['m']);
  expect(await windowRun(4096 - 8, 5)).toEqual([]);
});

/** Loops in the exported function `run` of an instrumented module. */
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

test('the fixture loops get copies reading those labels from locals', T, () => {
  for (const text of [hoist, window]) {
    const without = instrumentModule(wat(text), 'fixture.wasm', ['taint'], { taint: { noLoopLabels: true } }).bytes;
    const with_ = instrumentModule(wat(text), 'fixture.wasm', ['taint']).bytes;
    // One per copy of the loop alignment versioning left (the function is versioned whole too).
    expect(loopCount(with_)).toBeGreaterThan(loopCount(without));
  }
});
