// The taint analysis instruments only the functions a first run enters (src/taint/coverage.ts):
// the report is the one of a fully instrumented run, functions never entered keep their loops,
// branches and node sizes in it, and a run that enters a function left out (its guard fires) runs
// again with it instrumented.
import { test, expect } from 'vitest';
import binaryen from 'binaryen';
import { wat } from '../helpers/wat.js';
import { analyzeTaint, type TaintRunOptions } from '../../src/taint/analyze.js';
import { firstRun } from '../../src/taint/coverage.js';
import { runModule } from '../../src/runtime/run.js';
import { instrumentModule, siteTableOf } from '../../instrument/pipeline.js';
import type { TaintLayout } from '../../instrument/passes/taint.js';

const T = { timeout: 60_000 };

// run(n): `big` (a loop over n, called through the table) only when n > 5; `never` (loops, a
// branch, a table entry) in no run; `small` always.
const KERNEL = wat(`(module
  (memory (export "memory") 1)
  (type $unary (func (param i32) (result i32)))
  (table 3 funcref)
  (elem (i32.const 0) $big $never $small)
  (func $small (param $n i32) (result i32)
    (if (result i32) (i32.gt_s (local.get $n) (i32.const 2))
      (then (i32.add (local.get $n) (i32.const 1)))
      (else (local.get $n))))
  (func $big (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $exit (loop $l
      (br_if $exit (i32.ge_s (local.get $i) (local.get $n)))
      (local.set $s (i32.add (local.get $s) (call $small (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $s))
  (func $never (param $n i32) (result i32) (local $i i32)
    (block $exit (loop $l
      (br_if $exit (i32.ge_s (local.get $i) (local.get $n)))
      (if (i32.eq (local.get $i) (i32.const 3)) (then (i32.store (i32.const 0) (local.get $i))))
      (br_if $exit (i32.eq (i32.load (i32.const 0)) (i32.const 9)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $i))
  (func (export "run") (param $n i32) (result i32)
    (if (result i32) (i32.gt_s (local.get $n) (i32.const 5))
      (then (call_indirect (type $unary) (local.get $n) (i32.const 0)))
      (else (call $small (local.get $n))))))`);

const options = (n: number): TaintRunOptions => ({
  file: 'coverage.wasm',
  bytes: KERNEL,
  invoke: 'run',
  args: [String(n)],
  params: [{ name: 'n', arg: 0 }],
  implicitFlow: 'on',
});

const withoutTiming = <R extends { timing?: unknown }>(report: R) => ({ ...report, timing: null });

test('the entry bitmap changes nothing a run computes', T, async () => {
  const { bytes } = instrumentModule(KERNEL, 'coverage.wasm', ['entry-bitmap']);
  const plain = await runModule({ file: 'coverage.wasm', bytes: KERNEL, invoke: 'run', args: ['7'] });
  const marked = await runModule({ file: 'coverage.wasm', bytes, invoke: 'run', args: ['7'] });
  expect(marked.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
});

test('the first run finds the functions a run enters and the work each did there', T, async () => {
  // The entry-work table lists functions only: the loop's size comes from the full site table.
  const sites = siteTableOf(KERNEL, 'coverage.wasm');
  const size = (name: string) => sites.functions.find((f) => f.name === name)!.instructions;
  const loop = sites.loops.find((l) => l.function === 'big')!;
  const three = await firstRun({ ...options(3), plugins: [] }, {});
  expect(three.entered).toEqual(['run', 'small']);
  expect(three.work.get('small')).toBe(size('small'));
  const seven = await firstRun({ ...options(7), plugins: [] }, {});
  expect(seven.entered).toEqual(['big', 'run', 'small']);
  // `big` is entered once and its loop header runs 8 times (7 iterations and the exit test);
  // `small` is called in 7 of them.
  expect(seven.work.get('big')).toBe(size('big') - loop.instructions + 8 * loop.instructions);
  expect(seven.work.get('small')).toBe(7 * size('small'));
  expect(seven.work.has('never')).toBe(false);
  expect(seven.instructions.get('never')).toBe(size('never'));
});

test(
  'instrumenting only the entered functions gives the full report, never-entered loops and branches included',
  T,
  async () => {
    for (const n of [3, 7]) {
      const full = await analyzeTaint({ ...options(n), coverage: 'off' });
      const notes: string[] = [];
      const covered = await analyzeTaint({ ...options(n), coverage: 'on', log: (line) => notes.push(line) });
      expect(withoutTiming(covered.report)).toEqual(withoutTiming(full.report));
      expect(covered.outcome.repetitions[0]!.result).toEqual(full.outcome.repetitions[0]!.result);
      expect(notes).toEqual([`taint: instrumenting the ${n > 5 ? 3 : 2} function(s) a first run entered`]);
      // `never` is left out, yet its two loops' exits and its branch are listed (not executed), and
      // its node size is the full pass's.
      expect(covered.layout.guards?.map((g) => g.function)).toContain('never');
      const never = (l: { contexts: { functions: Array<{ name: string; nodeBytes: number }> } }) =>
        l.contexts.functions.find((f) => f.name === 'never')!.nodeBytes;
      expect(never(covered.layout)).toBe(never(full.layout));
      expect(covered.report.loops.find((l) => l.function === 'never')!.exits).toEqual([[], []]);
    }
    const big = (await analyzeTaint({ ...options(7), coverage: 'on' })).report.functions.find((f) => f.name === 'big')!;
    expect(big.dependency).toBe('n');
  },
);

test('functions instrumented without optimizations give the same report', T, async () => {
  for (const n of [3, 7]) {
    const full = await analyzeTaint({ ...options(n), coverage: 'off' });
    const notes: string[] = [];
    const cold = await analyzeTaint({ ...options(n), coverage: 'on', coldShare: 1, log: (line) => notes.push(line) });
    expect(notes).toEqual([
      `taint: instrumenting the ${n > 5 ? 3 : 2} function(s) a first run entered (${n > 5 ? 3 : 2} of them, which ran little, unoptimized)`,
    ]);
    expect(withoutTiming(cold.report)).toEqual(withoutTiming(full.report));
    expect(cold.outcome.repetitions[0]!.result).toEqual(full.outcome.repetitions[0]!.result);
  }
});

test('a run that enters a function left out is not data: it runs again with the function instrumented', T, async () => {
  const full = await analyzeTaint({ ...options(7), coverage: 'off' });
  const notes: string[] = [];
  // `big` runs (n = 7) but is left out of the covered set: its guard fires.
  const rerun = await analyzeTaint({
    ...options(7),
    coveredFunctions: ['run', 'small'],
    log: (line) => notes.push(line),
  });
  expect(notes).toEqual([
    'taint: the run entered 1 function(s) the first run did not (big); running again with them instrumented',
  ]);
  expect(rerun.layout.guards?.map((g) => g.function)).toEqual(['never']);
  expect(withoutTiming(rerun.report)).toEqual(withoutTiming(full.report));
  // Every round trips another guard: after the third, every function is instrumented.
  const rounds: string[] = [];
  const last = await analyzeTaint({ ...options(7), coveredFunctions: [], log: (line) => rounds.push(line) });
  expect(rounds).toEqual([
    'taint: the run entered 3 function(s) the first run did not (big, run, small); running again with them instrumented',
  ]);
  expect(withoutTiming(last.report)).toEqual(withoutTiming(full.report));
});

// Loops, branches and calls nested in operands (flattening moves them in front of their
// statement): a call in an `if` condition, an `if` with a value inside a loop, a `br_table`, a
// loop inside a call's operand.
const NESTED = wat(`(module
  (memory (export "memory") 1)
  (func $f (param $x i32) (result i32) (i32.mul (local.get $x) (i32.const 3)))
  (func $g (export "g") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $exit (loop $l
      (br_if $exit (i32.ge_s (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))
      (local.set $s (i32.add (local.get $s)
        (if (result i32) (i32.gt_s (call $f (local.get $i)) (i32.const 7))
          (then (call $f (i32.const 1)))
          (else (i32.load (local.get $i))))))
      (br $l)))
    (block $c (block $b (block $a
      (br_table $a $b $c (i32.and (local.get $s) (i32.const 3))))
      (local.set $s (call $f (local.get $s))))
      (local.set $s (i32.add (local.get $s) (i32.const 2))))
    (i32.add (local.get $s)
      (call $f (block (result i32) (loop $m
        (br_if $m (i32.lt_s (local.tee $n (i32.sub (local.get $n) (i32.const 1))) (i32.const 0))))
        (local.get $n)))))
  (func (export "run") (param $n i32) (result i32) (call $g (local.get $n))))`);

test("functions left out get the full pass's records, read off their code as it is", T, () => {
  const records = (functions?: string[]) => {
    const { bytes, sites } = instrumentModule(
      NESTED,
      'nested.wasm',
      ['taint'],
      functions ? { taint: { functions } } : {},
    );
    const t = sites.passes.taint as TaintLayout;
    return {
      bytes,
      loops: t.loops.map((l) => [l.id, l.function, l.exitConditions]),
      branches: t.branches.map((b) => [b.id, b.function, b.loop, b.kind]),
      nodes: t.contexts.functions.map((f) => f.nodeBytes),
    };
  };
  const full = records();
  const none = records([]);
  expect(none.loops).toEqual(full.loops);
  expect(none.branches).toEqual(full.branches);
  expect(none.nodes).toEqual(full.nodes);
  expect(full.branches.map((b) => b[3])).toEqual(['if', 'br_table']);
  // Not flattened: `g` keeps its own locals (flattening adds temporaries).
  const module = binaryen.readBinary(none.bytes);
  expect(binaryen.getFunctionInfo(module.getFunction('g')).vars).toHaveLength(2);
  module.dispose();
});
