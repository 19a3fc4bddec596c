// Precise propagation cases as WAT fixtures: locals, memory (loads join byte labels, memory.copy),
// globals, calls, select, br_if/br_table shapes, control-flow joins, library sources and costs.
import { test, expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { taintWat } from '../helpers/taint.js';
import { cli } from '../helpers/cli.js';
import { analyzeTaint, parseParamSpec } from '../../src/taint/analyze.js';
import { validateLibrary } from '../../src/taint/library.js';
import { formatPoly } from '../../src/taint/report.js';
import type { ShadowGranularity } from '../../instrument/passes/shadow-placement.js';
import type { ImplicitFlow } from '../../instrument/passes/taint-semantics.js';
import { tempDir } from '../helpers/temp.js';

const T = { timeout: 60_000 };

async function analyze(
  text: string,
  invoke: string,
  args: string[],
  params: string[],
  library?: unknown,
  granularity?: ShadowGranularity,
  implicitFlow?: ImplicitFlow,
) {
  return taintWat(text, invoke, args, params, {
    library: library ? validateLibrary(library, 'lib.json') : undefined,
    implicitFlow,
    granularity,
  });
}

const loopOver = (bound: string, label = 'l') => `
  (local.set $i (i32.const 0))
  (block $${label}_exit (loop $${label}
    (br_if $${label}_exit (i32.ge_s (local.get $i) ${bound}))
    (local.set $acc (i32.add (i32.mul (local.get $acc) (i32.const 3)) (local.get $i)))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (br $${label})))`;

test('through memory: a 4-byte load joins the labels of its bytes; memory.copy copies them', T, async () => {
  const report = await analyze(
    `(module (memory (export "memory") 1)
    (func (export "run") (param $n i32) (param $m i32) (result i32) (local $i i32) (local $acc i32)
      (i32.store8 (i32.const 100) (local.get $n))
      (i32.store8 (i32.const 103) (local.get $m))
      (memory.copy (i32.const 200) (i32.const 100) (i32.const 4))
      (i32.store (i32.const 300) (i32.const 7))
      ${loopOver('(i32.and (i32.load (i32.const 200)) (i32.const 15))', 'a')}
      ${loopOver('(i32.load (i32.const 300))', 'b')}
      (local.get $acc)))`,
    'run',
    ['5', '1'],
    ['n=arg0', 'm=arg1'],
  );
  expect(report.loops[0]!.params).toEqual(['n', 'm']);
  expect(report.loops[1]!.params).toEqual([]);
  expect(report.functions[0]!.dependency).toBe('n*m');
});

const overwrite = `(module (memory (export "memory") 1)
    (func (export "run") (param $n i32) (result i32) (local $i i32) (local $acc i32)
      (i32.store (i32.const 64) (local.get $n))
      (memory.fill (i32.const 64) (i32.const 0) (i32.const 2))
      (i32.store16 (i32.const 66) (i32.const 3))
      ${loopOver('(i32.load (i32.const 64))', 'a')}
      (i32.store (i32.const 80) (local.get $n))
      (i32.store (i32.const 80) (i32.const 2))
      ${loopOver('(i32.load (i32.const 80))', 'b')}
      (i64.store (i32.const 96) (i64.extend_i32_u (local.get $n)))
      (memory.fill (i32.const 96) (i32.const 1) (i32.const 8))
      ${loopOver('(i32.load (i32.const 100))', 'c')}
      (local.get $acc)))`;

test('byte shadow: a store overwrites labels; memory.fill with a constant clears them', T, async () => {
  const report = await analyze(overwrite, 'run', ['5'], ['n=arg0'], undefined, 'byte');
  expect(report.loops.map((l) => l.params)).toEqual([[], [], []]);
  expect(report.prunable).toEqual(['n']);
});

test(
  'word shadow: whole-word stores and fills overwrite labels; narrower stores add theirs to the word',
  T,
  async () => {
    const report = await analyze(overwrite, 'run', ['5'], ['n=arg0'], undefined, 'word');
    // Bytes 64-65 cleared and 66-67 rewritten one halfword at a time: the word keeps n (sound, coarser).
    expect(report.loops.map((l) => l.params)).toEqual([['n'], [], []]);
  },
);

test('word shadow: misaligned stores and copies keep every label (ORed into the words they touch)', T, async () => {
  const report = await analyze(
    `(module (memory (export "memory") 1)
    (func (export "run") (param $n i32) (param $m i32) (result i32) (local $i i32) (local $acc i32)
      (i32.store (i32.const 0) (i32.const 0))
      (i32.store offset=2 (i32.const 0) (local.get $n))
      (i64.store offset=6 (i32.const 32) (i64.extend_i32_u (local.get $m)))
      (memory.copy (i32.const 65) (i32.const 38) (i32.const 8))
      ${loopOver('(i32.and (i32.load8_u (i32.const 1)) (i32.const 7))', 'a')}
      ${loopOver('(i32.and (i32.load8_u (i32.const 5)) (i32.const 7))', 'b')}
      ${loopOver('(i32.and (i32.load (i32.const 44)) (i32.const 7))', 'c')}
      ${loopOver('(i32.and (i32.load8_u (i32.const 72)) (i32.const 7))', 'd')}
      ${loopOver('(i32.and (i32.load8_u (i32.const 76)) (i32.const 7))', 'e')}
      (local.get $acc)))`,
    'run',
    ['3', '2'],
    ['n=arg0', 'm=arg1'],
    undefined,
    'word',
  );
  expect(report.loops.map((l) => l.params)).toEqual([['n'], ['n'], ['m'], ['m'], []]);
});

test('globals, return values, select and call_indirect carry labels', T, async () => {
  const report = await analyze(
    `(module (memory (export "memory") 1)
    (type $t (func (param i32) (result i32)))
    (table 2 funcref) (elem (i32.const 0) $half $twice)
    (global $bound (mut i32) (i32.const 0))
    (func $half (param $x i32) (result i32) (i32.shr_s (local.get $x) (i32.const 1)))
    (func $twice (param $x i32) (result i32) (i32.shl (local.get $x) (i32.const 1)))
    (func $viaGlobal (result i32) (local $i i32) (local $acc i32) ${loopOver('(global.get $bound)')} (local.get $acc))
    (func (export "run") (param $n i32) (param $k i32) (param $s i32) (result i32) (local $i i32) (local $acc i32)
      (global.set $bound (local.get $n))
      (local.set $acc (call $viaGlobal))
      ${loopOver('(call_indirect (type $t) (local.get $k) (i32.and (local.get $k) (i32.const 1)))', 'b')}
      ${loopOver('(select (i32.const 3) (i32.const 4) (local.get $s))', 'c')}
      (local.get $acc)))`,
    'run',
    ['4', '6', '1'],
    ['n=arg0', 'k=arg1', 's=arg2'],
  );
  const byFunction = (name: string) => report.functions.find((f) => f.name === name)!;
  expect(byFunction('viaGlobal').dependency).toBe('n');
  expect(report.loops.find((l) => l.function === 'run' && l.parent === null && l.params.includes('k'))).toBeTruthy();
  expect(report.loops.filter((l) => l.function === 'run').map((l) => l.params)).toEqual([['k'], ['s']]);
  expect(byFunction('run').dependency).toBe('k + s');
});

test('--param NAME=global:EXPORT labels an exported global', T, async () => {
  const report = await analyze(
    `(module (memory (export "memory") 1)
    (global $g (export "size") (mut i32) (i32.const 6))
    (func (export "run") (result i32) (local $i i32) (local $acc i32) ${loopOver('(global.get $g)')} (local.get $acc)))`,
    'run',
    [],
    ['size=global:size'],
  );
  expect(report.loops[0]!.params).toEqual(['size']);
});

test(
  'implicit flow: a value chosen under a tainted condition carries it with --implicit-flow on (not by default); a bottom-tested loop exit does not taint its body',
  T,
  async () => {
    const text = `(module (memory (export "memory") 1)
    (func (export "run") (param $c i32) (param $n i32) (result i32) (local $i i32) (local $j i32) (local $r i32) (local $acc i32)
      (local.set $r (i32.const 3))
      (if (i32.gt_s (local.get $c) (i32.const 0)) (then (local.set $r (i32.const 5))))
      ${loopOver('(local.get $r)')}
      (local.set $i (i32.const 0))
      (loop $outer
        (local.set $j (i32.const 0))
        (loop $inner
          (local.set $acc (i32.add (local.get $acc) (local.get $j)))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br_if $inner (i32.lt_s (local.get $j) (i32.const 4))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $outer (i32.lt_s (local.get $i) (local.get $n))))
      (local.get $acc)))`;
    for (const [mode, chosen, dependency] of [
      ['on', ['c'], 'c + n'],
      [undefined, [], 'n'],
    ] as const) {
      const report = await analyze(text, 'run', ['1', '6'], ['c=arg0', 'n=arg1'], undefined, undefined, mode);
      const [first, outer, inner] = report.loops;
      expect(first!.params, `--implicit-flow ${mode ?? 'default'}`).toEqual(chosen);
      expect(outer!.params).toEqual(['n']);
      expect(inner!.params).toEqual([]);
      expect(inner!.iterations).toBe(24);
      expect(report.functions[0]!.dependency).toBe(dependency);
    }
  },
);

test(
  "by default only the counters of a nest's outer loops take exit labels: a search loop's result stays data",
  T,
  async () => {
    // k = the first k with k*k >= n (an innermost loop), then a loop to k; then a triangular nest.
    const text = `(module (memory (export "memory") 1)
    (func (export "run") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $k i32) (local $acc i32)
      (block $found (loop $search
        (br_if $found (i32.ge_s (i32.mul (local.get $k) (local.get $k)) (local.get $n)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $search)))
      (block $done (loop $upto
        (br_if $done (i32.ge_s (local.get $i) (local.get $k)))
        (local.set $acc (i32.add (local.get $acc) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $upto)))
      (local.set $i (i32.const 0))
      (block $outer_done (loop $outer
        (br_if $outer_done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $j (i32.const 0))
        (block $inner_done (loop $inner
          (br_if $inner_done (i32.ge_s (local.get $j) (local.get $i)))
          (local.set $acc (i32.add (local.get $acc) (local.get $j)))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $inner)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $outer)))
      (local.get $acc)))`;
    for (const [mode, upto, dependency] of [
      [undefined, [], 'n*n'],
      ['on', ['n'], 'n*n'],
      ['off', [], 'n'],
    ] as const) {
      const report = await analyze(text, 'run', ['10'], ['n=arg0'], undefined, undefined, mode);
      const [search, uptoLoop, outer, inner] = report.loops;
      const context = `--implicit-flow ${mode ?? 'default'}`;
      expect(search!.params, context).toEqual(['n']);
      expect(uptoLoop!.params, context).toEqual(upto);
      expect(outer!.params, context).toEqual(['n']);
      expect(inner!.params, context).toEqual(mode === 'off' ? [] : ['n']);
      expect(report.functions[0]!.dependency, context).toBe(dependency);
    }
  },
);

test('parameter-dependent branches and loops never executed are reported; recursion warns', T, async () => {
  const report = await analyze(
    `(module (memory (export "memory") 1)
    (func $rec (param $d i32) (result i32) (local $i i32) (local $acc i32)
      ${loopOver('(local.get $d)')}
      (if (result i32) (i32.gt_s (local.get $d) (i32.const 0))
        (then (i32.add (local.get $acc) (call $rec (i32.sub (local.get $d) (i32.const 1)))))
        (else (local.get $acc))))
    (func (export "run") (param $n i32) (param $alg i32) (result i32) (local $i i32) (local $acc i32)
      (if (i32.eq (local.get $alg) (i32.const 7)) (then ${loopOver('(i32.const 3)', 'never')}))
      (block $b2 (block $b (br_table $b $b2 (local.get $alg))) (local.set $acc (i32.add (local.get $acc) (i32.const 1))))
      (i32.add (local.get $acc) (call $rec (local.get $n)))))`,
    'run',
    ['3', '1'],
    ['n=arg0', 'alg=arg1'],
  );
  expect(report.branches.filter((b) => b.params.includes('alg')).length).toBeGreaterThanOrEqual(2);
  expect(report.notExecuted.loops.length).toBe(1);
  expect(report.warnings.some((w) => /recursive/.test(w))).toBe(true);
  expect(report.prunable).toEqual(['alg']);
});

test('library: a source writes a named label through a pointer, a cost depends on p and an argument', T, async () => {
  const bytes = wat(`(module
    (import "env" "MPI_Comm_size" (func $size (param i32 i32) (result i32)))
    (import "env" "MPI_Send" (func $send (param i32 i32) (result i32)))
    (memory (export "memory") 1)
    (func (export "run") (param $count i32) (result i32) (local $i i32) (local $acc i32)
      (drop (call $size (i32.const 0) (i32.const 16)))
      ${loopOver('(i32.load (i32.const 16))')}
      (drop (call $send (i32.const 0) (local.get $count)))
      (local.get $acc)))`);
  const library = validateLibrary(
    {
      imports: {
        'env.MPI_Comm_size': { result: 'none', sources: [{ label: 'p', arg: 1, bytes: 4 }] },
        'env.MPI_Send': { cost: { params: ['p'], args: [1] } },
      },
    },
    'lib.json',
  );
  // The host provides the MPI-like API through a plugin; a tiny one stands in here.
  const hostUrl =
    'data:text/javascript,' +
    encodeURIComponent(`export default () => ({ imports: () => ({ env: {
    MPI_Comm_size: (c, p) => 0, MPI_Send: () => 0 } }) });`);
  const analysis = await analyzeTaint({
    file: 'mpi.wasm',
    bytes,
    invoke: 'run',
    args: ['8'],
    params: [parseParamSpec('count=arg0')],
    library,
    extraPlugins: [{ url: hostUrl, options: null }],
  });
  const report = analysis.report;
  expect(report.parameters).toEqual(expect.arrayContaining(['p', 'count']));
  expect(report.loops[0]!.params).toEqual(['p']);
  expect(report.imports[0]!.params.sort()).toEqual(['count', 'p']);
  expect(report.functions[0]!.dependency).toBe('count*p');
});

test('dependency expressions: dominated terms are absorbed, siblings add', () => {
  const poly = (...monos: string[][]) => new Map(monos.map((m) => [m.join('*'), m]));
  expect(formatPoly(poly(['n'], ['m', 'n']), ['n', 'm'])).toBe('n*m');
  expect(formatPoly(poly(['a', 'b'], ['c'], []), ['a', 'b', 'c'])).toBe('a*b + c');
  expect(formatPoly(poly([]), [])).toBeNull();
});

test('CLI: text and JSON reports, exports, and one-line errors naming the file', T, async () => {
  const dir = tempDir('taintlens-taint-cli-');
  const file = join(dir, 'k.wasm');
  writeFileSync(
    file,
    wat(`(module (memory (export "memory") 1)
    (global (export "g") (mut i32) (i32.const 2))
    (func (export "run") (param $n i32) (param $b i32) (result i32) (local $i i32) (local $acc i32)
      ${loopOver('(local.get $n)')} (i32.add (local.get $acc) (local.get $b))))`),
  );
  const json = await cli([
    'taint',
    file,
    '--args',
    '5,2',
    '--param',
    'n=arg0',
    '--param',
    'b=arg1',
    '--json',
    '--scorep-filter',
    join(dir, 'filter.txt'),
    '--perf-taint-json',
    join(dir, 'pt.json'),
  ]);
  expect(json.stderr).toBe('');
  expect(json.code).toBe(0);
  const report = JSON.parse(json.stdout);
  expect(report.schema).toBe('taintlens/taint@2');
  expect(report.parameters).toEqual(['n', 'b']);
  expect(report.functions[0]).toMatchObject({ name: 'run', dependency: 'n', pruned: null, params: ['n'] });
  expect(report.loops[0]).toMatchObject({ id: 'L0', function: 'run', parent: null, params: ['n'], iterations: 5 });
  expect(report.prunable).toEqual(['b']);
  const { readFileSync } = await import('node:fs');
  expect(readFileSync(join(dir, 'filter.txt'), 'utf8')).toContain('INCLUDE run');
  const pt = JSON.parse(readFileSync(join(dir, 'pt.json'), 'utf8'));
  expect(pt.parameters).toEqual(['n', 'b']);
  expect(pt.functions.run.loops[0].deps).toEqual([['n']]);
  const text = await cli(['taint', file, '--args', '5,2', '--param', 'n=arg0']);
  expect(text.stdout).toContain('prunable');
  expect(text.stdout).toMatch(/run\s+n\s+n/);

  const bad = await cli(['taint', file, '--args', '5,2', '--param', 'n=arg']);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  expect(bad.stderr).toContain('--param');
  const range = await cli(['taint', file, '--args', '5,2', '--param', 'n=arg2']);
  expect(range.stderr).toMatch(/k\.wasm: .*arg2.*2 argument/);
  const global = await cli(['taint', file, '--args', '5,2', '--param', 'n=global:nope']);
  expect(global.stderr).toMatch(/k\.wasm: .*no exported global 'nope'/);
  writeFileSync(join(dir, 'lib.json'), '{ "imports": { ');
  const lib = await cli(['taint', file, '--args', '5,2', '--library', join(dir, 'lib.json')]);
  expect(lib.stderr).toMatch(/lib\.json: malformed library JSON/);
  expect(lib.stderr.trim().split('\n')).toHaveLength(1);
});
