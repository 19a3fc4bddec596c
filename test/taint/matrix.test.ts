// The taint matrix: native/src/taint_matrix.c built at -O0, -O1, -O2 and -O2 -fno-unroll-loops
// (native/build.sh). Every loop shape compilers emit — unrotated loops whose exits are forward
// br_ifs over a `br`, rotated and guarded loops, runtime-unrolled loops with remainders — must give
// the dependencies written here by hand from the source, at every level. One instrumentation and
// one run per level: `run(n, m, k, c)` calls every case.
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { analyzeTaint } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';
import type { ImplicitFlow } from '../../instrument/passes/taint-semantics.js';
import type { TaintReport } from '../../src/taint/report.js';

const T = { timeout: 120_000 };
const ARGS = ['6', '5', '4', '7'];

interface Expected {
  /** The function's dependency polynomial (null: constant). */
  dependency: string | null;
  /** Distinct parameter sets of the function's executed loops (a loop the compiler split keeps its set). */
  loops: string[][];
  /** Source-level iterations summed over the function's loops, where the loops leave through their tests. */
  iterations?: number;
}

const source: Record<string, Expected> = {
  const_loop: { dependency: null, loops: [[]], iterations: 20 },
  for_loop: { dependency: 'n', loops: [['n']], iterations: 6 },
  while_loop: { dependency: 'm', loops: [['m']], iterations: 5 },
  do_while: { dependency: 'k', loops: [['k']], iterations: 4 },
  break_top: { dependency: 'n', loops: [['n']], iterations: 6 },
  break_middle: { dependency: 'm', loops: [['m']] },
  break_bottom: { dependency: 'k', loops: [['k']], iterations: 4 },
  multi_exit: { dependency: 'n*m', loops: [['n', 'm']] },
  search_return: { dependency: 'n*m', loops: [['n', 'm']], iterations: 6 },
  goto_loop: { dependency: 'k', loops: [['k']], iterations: 4 },
  sequential: { dependency: 'k + m + n', loops: [['k'], ['m'], ['n']], iterations: 15 },
  nested_jump: { dependency: 'n*m', loops: [['m'], ['n']] },
  never_iterates: { dependency: 'n', loops: [['n']], iterations: 0 },
  diamond_call: { dependency: null, loops: [] },
  float_out_of_range: { dependency: 'n', loops: [['n']], iterations: 7 },
  float_in_range: { dependency: 'm', loops: [['m']], iterations: 7 },
  switch_loop: { dependency: 'n*m', loops: [['n', 'm']], iterations: 6 },
};

/** What each compiler level does to the source loops, stated where it departs from the source. */
const levels: Record<string, { overrides: Record<string, Partial<Expected> & { why: string }>; iterations: boolean }> =
  {
    O0: { overrides: {}, iterations: true },
    O1: {
      iterations: true,
      overrides: {
        never_iterates: {
          dependency: null,
          loops: [],
          iterations: undefined,
          why: 'the rotated loop sits behind a guard on n that skips it (a branch on n)',
        },
      },
    },
    O2: {
      // Runtime unrolling splits loops into a main loop and a remainder: header counts are no longer per source iteration.
      iterations: false,
      overrides: {
        const_loop: { loops: [], why: 'fully unrolled (10 iterations)' },
        nested_jump: {
          dependency: 'n',
          loops: [['n']],
          why: 'the inner loop runs at most 3 times: fully unrolled, its exits on m become branches',
        },
        never_iterates: {
          dependency: null,
          loops: [],
          why: 'the rotated loop sits behind a guard on n that skips it (a branch on n)',
        },
      },
    },
    O2_nounroll: {
      iterations: true,
      overrides: {
        never_iterates: {
          dependency: null,
          loops: [],
          iterations: undefined,
          why: 'the rotated loop sits behind a guard on n that skips it (a branch on n)',
        },
      },
    },
  };

const key = (params: string[]) => [...params].sort().join(',');

function functionOf(report: TaintReport, name: string) {
  return report.functions.find((f) => f.name === name);
}

async function analyzeLevel(level: string, implicitFlow?: ImplicitFlow): Promise<TaintReport> {
  const file = `native/wasm/taint_matrix_${level}.wasm`;
  const bytes = readFileSync(file);
  const plain = await runModule({ file, bytes, invoke: 'run', args: ARGS });
  const analysis = await analyzeTaint({ file, bytes, invoke: 'run', args: ARGS, implicitFlow });
  expect(analysis.outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
  return analysis.report;
}

for (const [level, { overrides, iterations }] of Object.entries(levels)) {
  describe(`taint matrix at -${level.replace('_nounroll', ' -fno-unroll-loops')}`, () => {
    let report: TaintReport;
    test('instrumented run returns what the original returns', T, async () => {
      report = await analyzeLevel(level);
    });
    for (const [name, base] of Object.entries(source)) {
      const expected = { ...base, ...overrides[name] };
      test(`${name}: ${expected.dependency ?? 'constant'}${overrides[name] ? ` (${overrides[name]!.why})` : ''}`, () => {
        const f = functionOf(report, name);
        expect(f, `${name} missing from the report`).toBeDefined();
        expect(f!.dependency).toBe(expected.dependency);
        const loops = report.loops.filter((l) => l.function === name && l.executed);
        const distinct = [...new Set(loops.map((l) => key(l.params)))].sort();
        expect(distinct).toEqual(expected.loops.map(key).sort());
        if (iterations && expected.iterations !== undefined) {
          expect(loops.reduce((sum, l) => sum + l.iterations, 0)).toBe(expected.iterations);
        }
      });
    }
    test('sequential loops are siblings; the diamond before the call taints only its branch', () => {
      expect(report.loops.filter((l) => l.function === 'sequential').every((l) => l.parent === null)).toBe(true);
      // -O0 keeps the diamond (and const_loop's counter in memory, where a leaked control label would reach it); -O1 on make it a select.
      for (const b of report.branches.filter((x) => x.function === 'diamond_call' && x.executed))
        expect(b.params).toEqual(['c']);
      expect(report.prunable).toEqual(['c']);
    });
    if (overrides.never_iterates) {
      test('never_iterates: the guard that skips the loop carries n', () => {
        const guards = report.branches.filter((b) => b.function === 'never_iterates' && b.executed);
        expect(guards.map((b) => b.params)).toContainEqual(['n']);
      });
    }
  });
}

test(
  '--implicit-flow off: data flow only; the out-of-range conversion result still carries n (a conversion)',
  T,
  async () => {
    const report = await analyzeLevel('O2_nounroll', 'off');
    expect(functionOf(report, 'float_out_of_range')!.dependency).toBe('n');
    expect(functionOf(report, 'float_in_range')!.dependency).toBe('m');
    expect(functionOf(report, 'for_loop')!.dependency).toBe('n');
  },
);
