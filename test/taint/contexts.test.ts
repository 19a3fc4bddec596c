// Loop sinks per calling context, as full call paths: the same loop entered along two paths keeps
// the labels, exit conditions and iterations of each apart (the report's `contexts`), and their
// union is the loop's.
import { test, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { wat } from '../helpers/wat.js';
import { taintChecked } from '../helpers/taint.js';
import { COUNT } from '../helpers/loop-shapes.js';
import { analyzeTaint, parseParamSpec } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';
import { renderTaintReport } from '../../src/taint/text.js';
import { perfTaintJson } from '../../src/taint/exports.js';

test(
  'a loop keeps one record per calling context: each direct and indirect call site of its function',
  { timeout: 60_000 },
  async () => {
    const bytes = wat(`(module (memory (export "memory") 1)
    (type $t (func (param i32) (result i32)))
    (table 1 funcref) (elem (i32.const 0) $count)
    ${COUNT}
    (func (export "run") (param $n i32) (result i32)
      (i32.add
        (i32.add (call $count (local.get $n)) (call $count (i32.const 3)))
        (call_indirect (type $t) (i32.const 2) (i32.const 0)))))`);
    const { report } = await taintChecked({
      file: 'contexts.wasm',
      bytes,
      invoke: 'run',
      args: ['5'],
      params: [parseParamSpec('n=arg0')],
    });
    const loop = report.loops.find((l) => l.function === 'count')!;
    expect(loop.params).toEqual(['n']);
    expect(loop.exits).toEqual([['n']]);
    expect(loop.iterations).toBe(5 + 3 + 2);
    const context = (iterations: number, params: string[]) => ({
      node: expect.any(Number),
      callpath: ['run', 'count'],
      call: expect.any(String),
      caller: 'run',
      params,
      exits: [params],
      iterations,
    });
    expect(loop.contexts).toEqual([context(5, ['n']), context(3, []), context(2, [])]);
    expect(new Set(loop.contexts.map((c) => c.call)).size).toBe(3);
  },
);

test(
  'the text report lists the call paths of a loop whose parameters differ by context',
  { timeout: 60_000 },
  async () => {
    const bytes = wat(`(module (memory (export "memory") 1)
    ${COUNT}
    (func (export "run") (param $n i32) (result i32)
      (i32.add (call $count (local.get $n)) (call $count (i32.const 3)))))`);
    const { report } = await analyzeTaint({
      file: 'contexts.wasm',
      bytes,
      invoke: 'run',
      args: ['4'],
      params: [parseParamSpec('n=arg0')],
    });
    const text = renderTaintReport(report);
    expect(text).toContain('loops whose parameters depend on the calling context');
    expect(text).toMatch(/run→count \(C\d+\)\s+n\s+n\s+4/);
    expect(text).toMatch(/run→count \(C\d+\)\s+-\s+-\s+3/);
  },
);

test(
  "a call in a loop multiplies with its callee in that call's context: count(3) in a k-loop is k, not k*n",
  { timeout: 60_000 },
  async () => {
    const bytes = wat(`(module (memory (export "memory") 1)
    ${COUNT}
    (func $sweep (param $k i32) (result i32) (local $j i32) (local $acc i32)
      (block $exit (loop $l
        (br_if $exit (i32.ge_s (local.get $j) (local.get $k)))
        (local.set $acc (i32.add (local.get $acc) (call $count (i32.const 3))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l)))
      (local.get $acc))
    (func (export "run") (param $n i32) (param $k i32) (result i32)
      (i32.add (call $count (local.get $n)) (call $sweep (local.get $k)))))`);
    const { report } = await analyzeTaint({
      file: 'contexts.wasm',
      bytes,
      invoke: 'run',
      args: ['4', '2'],
      params: ['n=arg0', 'k=arg1'].map(parseParamSpec),
    });
    const fn = (name: string) => report.functions.find((f) => f.name === name)!;
    expect(fn('count').dependency).toBe('n');
    expect(fn('sweep').dependency).toBe('k');
    expect(fn('count').contexts).toEqual([
      {
        node: expect.any(Number),
        callpath: ['run', 'count'],
        call: expect.any(String),
        caller: 'run',
        dependency: 'n',
      },
      {
        node: expect.any(Number),
        callpath: ['run', 'sweep', 'count'],
        call: expect.any(String),
        caller: 'sweep',
        dependency: null,
      },
    ]);
  },
);

// The same call site (in h) reaches g with g(x1, x2) on one path and g(x1, 100) on the other:
// one call deep, both would share h's call site and merge into {x1, x2}.
test(
  'C kernel: one call site, two call paths: g depends on {x1,x2} via via_a and on {x1} via via_b',
  { timeout: 60_000 },
  async () => {
    const file = 'native/wasm/taint_semantics.wasm';
    const bytes = readFileSync(file);
    const plain = await runModule({ file, bytes, invoke: 'contexts', args: ['3', '4'] });
    const { report, outcome } = await analyzeTaint({ file, bytes, invoke: 'contexts', args: ['3', '4'] });
    expect(outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
    const loop = report.loops.find((l) => l.function === 'g')!;
    expect(loop.params).toEqual(['x1', 'x2']);
    expect(loop.contexts.map((c) => [c.callpath.join('→'), c.params, c.iterations])).toEqual([
      ['contexts→via_a→h→g', ['x1', 'x2'], 7],
      ['contexts→via_b→h→g', ['x1'], 103],
    ]);
    // Both paths enter g from the same call site in h.
    expect(loop.contexts[0]!.call).toBe(loop.contexts[1]!.call);
    expect(renderTaintReport(report)).toMatch(/contexts→via_b→h→g \(C\d+\)\s+x1\s+x1\s+103/);

    // Perf-Taint's JSON: one entry per loop instance, with its call stack (function indices).
    const pt = perfTaintJson(report) as {
      functions: Record<
        string,
        { loops: Array<{ callstacks: number[][]; instance: Record<string, { level: number; params: string[][] }> }> }
      >;
      functions_names: string[];
    };
    const names = pt.functions_names;
    expect(
      pt.functions.g!.loops.map((e) => ({
        stacks: e.callstacks.map((s) => s.map((i) => names[i])),
        instance: e.instance,
      })),
    ).toEqual([
      { stacks: [['contexts', 'via_a', 'h']], instance: { 0: { level: 0, params: [['x1', 'x2']] } } },
      { stacks: [['contexts', 'via_b', 'h']], instance: { 0: { level: 0, params: [['x1']] } } },
    ]);
  },
);

test(
  'recursion through a function keeps one context (folded onto the ancestor), not one per depth',
  { timeout: 60_000 },
  async () => {
    const bytes = wat(`(module (memory (export "memory") 1)
    ${COUNT}
    (func $down (param $d i32) (param $n i32) (result i32)
      (if (result i32) (i32.eqz (local.get $d))
        (then (call $count (local.get $n)))
        (else (i32.add (call $count (i32.const 2)) (call $down (i32.sub (local.get $d) (i32.const 1)) (local.get $n))))))
    (func (export "run") (param $d i32) (param $n i32) (result i32)
      (call $down (local.get $d) (local.get $n))))`);
    const { report } = await analyzeTaint({
      file: 'rec.wasm',
      bytes,
      invoke: 'run',
      args: ['6', '5'],
      params: ['d=arg0', 'n=arg1'].map(parseParamSpec),
    });
    const loop = report.loops.find((l) => l.function === 'count')!;
    expect(loop.iterations).toBe(6 * 2 + 5);
    expect(loop.contexts.map((c) => [c.callpath.join('→'), c.params, c.iterations])).toEqual([
      ['run→down→count', [], 12],
      ['run→down→count', ['n'], 5],
    ]);
    expect(report.warnings.some((w) => /down is recursive and its recursion depth depends on d/.test(w))).toBe(true);
  },
);
