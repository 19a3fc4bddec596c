// The loop depth as a prior: it bounds each term of an exact count (x^e·log2^g(x) with e + g ≤ the
// depth over x) and the shapes of a noisy model (⌈e⌉ + g ≤ depth); the functions of each parameter
// read off the lines of the grid; and what no grid of five values can tell apart.
import { describe, expect, test } from 'vitest';
import { parseTaintReport } from '../../src/io/taint.js';
import { ourMethod, recoveryRates, syntheticCases } from '../../bench/model/benchmark.js';
import { exactModel } from '../../src/model/exact.js';
import { nestFlags } from '../../src/model/exact-flags.js';
import { loopDepth } from '../../src/model/exponents.js';
import { formatModel } from '../../src/model/format.js';
import { DEFAULT_GROWTH, modelExperiment, type CallpathModel } from '../../src/model/modeler.js';
import {
  NEST_DESIGN_3,
  nestCases,
  nestTaintReport,
  nestTimeSeries,
  scoreNestTimes,
} from '../../bench/model/nest-bench.js';
import { dependencyDepths } from '../../src/model/prior.js';
import { DEFAULT_DESIGN, rng, syntheticTaintReport } from '../../bench/model/synthetic.js';
import type { Series } from '../../src/model/types.js';

const T = [1, 2, 3, 4, 5];
const N = [16, 32, 64, 128, 256];

function grid(axes: number[][]): number[][] {
  let points: number[][] = [[]];
  for (const axis of axes) points = points.flatMap((p) => axis.map((x) => [...p, x]));
  return points;
}

/** Exact counts (three identical repetitions) of `f` over the grid of `axes`. */
function countSeries(name: string, params: string[], axes: number[][], f: (x: number[]) => number): Series {
  return {
    callpath: `main->${name}`,
    metric: 'instructions',
    params,
    points: grid(axes).map((coords) => ({ coords, values: [f(coords), f(coords), f(coords)] })),
  };
}

function taint(params: string[], functions: Array<{ name: string; dependency: string }>, loops: unknown[] = []) {
  return parseTaintReport(
    {
      schema: 'taintlens/taint@1',
      parameters: params,
      loops,
      warnings: [],
      functions: functions.map(({ name, dependency }) => ({
        name,
        params: params.filter((p) => dependency.includes(p)),
        dependency,
        pruned: null,
      })),
    },
    'taint.json',
  );
}

function modelOf(series: Series, report?: ReturnType<typeof taint>): CallpathModel {
  return modelExperiment(
    { source: 'm', params: series.params, series: [series] },
    { aggregate: 'median', growth: DEFAULT_GROWTH, ...(report ? { taint: report } : {}) },
  ).models[0]!;
}

const log2 = Math.log2;

describe('loop depths of a dependency', () => {
  test('one depth vector per nest, over the series parameters', () => {
    expect(dependencyDepths('t*n*n + n', ['t', 'n'])).toEqual([
      [1, 2],
      [0, 1],
    ]);
    expect(dependencyDepths('n*t*n', ['t', 'n'])).toEqual([[1, 2]]);
    expect(dependencyDepths('a*(b + c)', ['a', 'b', 'c'])).toEqual([
      [1, 1, 0],
      [1, 0, 1],
    ]);
    // Parameters the series does not vary are left out, and so are nests over them alone.
    expect(dependencyDepths('p*n + p', ['n'])).toEqual([[1]]);
  });

  test('the loops a shape needs: ⌈e⌉ + g', () => {
    expect(loopDepth(1, 0)).toBe(1);
    expect(loopDepth(0, 2)).toBe(2);
    expect(loopDepth(1, 1)).toBe(2);
    expect(loopDepth(2.5, 0)).toBe(3);
    expect(loopDepth(0.25, 1)).toBe(2);
  });

  test('beyond-nest counts log factors as loop levels', () => {
    const nLogN = [{ coefficient: 1, factors: [{ param: 'n', exponent: 1, log: 1 }] }];
    expect(nestFlags(nLogN, [1], ['n'])).toEqual(['beyond-nest:n']);
    expect(nestFlags(nLogN, [2], ['n'])).toEqual([]);
  });
});

describe('exact counts under the loop-depth prior', () => {
  test('two log-trip levels over n: log2²(n) is in the space only with the prior (depth 2)', () => {
    const series = countSeries(
      'bits',
      ['t', 'n'],
      [T, N],
      ([t, n]) => 15 * t! + 25 * t! * log2(n!) + 28 * t! * log2(n!) ** 2,
    );
    const blind = modelOf(series);
    expect(blind.exact).toBe(false);
    expect(blind.flags).toContain('inexact');
    const withPrior = modelOf(series, taint(['t', 'n'], [{ name: 'bits', dependency: 't*n*n' }]));
    expect(withPrior.exact).toBe(true);
    expect(withPrior.model).toBe('28 * t * log2(n)^2 + 25 * t * log2(n) + 15 * t');
    expect(withPrior.leading).toBe('28 * t * log2(n)^2');
  });

  test('the functions of each parameter, read off the lines: a form the greedy selection misses', () => {
    // Four functions of t (1, t, t², t³) and two of n (1, log2 n), more monomials than points.
    const f = ([t, n]: number[]) =>
      112 + 8.5 * t! + 10.5 * t! ** 2 + 6 * t! ** 3 + 2 * t! ** 3 * log2(n!) + 2 * t! ** 2 * log2(n!);
    const { coords, y } = {
      coords: [Float64Array.from(grid([T, N]).map((p) => p[0]!)), Float64Array.from(grid([T, N]).map((p) => p[1]!))],
      y: Float64Array.from(grid([T, N]).map(f)),
    };
    const model = exactModel(coords, y, ['t', 'n'], [true, true])!;
    expect(formatModel(model.terms)).toBe(
      '112 + 2 * t^3 * log2(n) + 6 * t^3 + 2 * t^2 * log2(n) + 21/2 * t^2 + 17/2 * t',
    );
    expect(formatModel(model.leading)).toBe('2 * t^3 * log2(n)');
  });

  test('an (a − 1)-bounded outer loop gives an inner-only term (−7·b) that the loop levels alone would forbid: exact, no interaction', () => {
    // for (i < a − 1) { 3 work; for (j < b) { 7 work } } + 10
    const series = countSeries(
      'outer',
      ['a', 'b'],
      [
        [4, 6, 8, 10, 12],
        [4, 6, 8, 10, 12],
      ],
      ([a, b]) => 10 + 3 * (a! - 1) + 7 * (a! - 1) * b!,
    );
    const loops = [
      { id: 'outer.L0', function: 'outer', parent: null, params: ['a'] },
      { id: 'outer.L1', function: 'outer', parent: 'outer.L0', params: ['b'] },
    ];
    const model = modelOf(series, taint(['a', 'b'], [{ name: 'outer', dependency: 'a*b' }], loops));
    expect(model.exact).toBe(true);
    expect(model.model).toBe('7 + 7 * a * b - 7 * b + 3 * a');
    expect(model.flags.filter((flag) => flag.startsWith('beyond-nest') || flag === 'interaction')).toEqual([]);
  });

  test('as many functions of n as n has values: no form can be checked, so it is inexact, prior or not', () => {
    const series = countSeries(
      'lognest',
      ['t', 'n'],
      [T, N],
      ([t, n]) => 52 * t! + 35 * n! + 52 * n! * log2(n!) - 26 * log2(n!) - 26 * n! ** 2 * log2(n!),
    );
    for (const report of [undefined, taint(['t', 'n'], [{ name: 'lognest', dependency: 't*n*n*n' }])]) {
      const model = modelOf(series, report);
      expect(model.exact).toBe(false);
      expect(model.flags).toContain('inexact');
      // n is what lacks values (four functions of it beside the constant, five sizes); t does not.
      expect(model.flags).toContain('more-values:n');
      expect(model.flags).not.toContain('more-values:t');
    }
    // A sixth size checks the form.
    const wider = countSeries(
      'lognest',
      ['t', 'n'],
      [T, [...N, 512]],
      ([t, n]) => 52 * t! + 35 * n! + 52 * n! * log2(n!) - 26 * log2(n!) - 26 * n! ** 2 * log2(n!),
    );
    const model = modelOf(wider, taint(['t', 'n'], [{ name: 'lognest', dependency: 't*n*n*n' }]));
    expect(model.exact).toBe(true);
    expect(model.leading).toBe('-26 * n^2 * log2(n) + 52 * t');
  });
});

describe('noisy data under the loop-depth prior', () => {
  test('a measurement that grows faster than its nest allows: the model follows it, flagged beyond-nest', () => {
    const random = rng(5);
    const series: Series = {
      callpath: 'main->cube',
      metric: 'time',
      params: ['n'],
      points: [8, 16, 32, 64, 128, 256].map((n) => ({
        coords: [n],
        values: Array.from({ length: 5 }, () => (2 + 1e-4 * n ** 3) * (1 + 0.01 * (2 * random() - 1))),
      })),
    };
    const model = modelOf(series, taint(['n'], [{ name: 'cube', dependency: 'n' }]));
    expect(model.flags).toContain('beyond-nest:n');
    expect(model.growth['n']!.exponent).toBe(3);
    expect(model.alternative?.basis).toBe('taint prior');
    expect(
      loopDepth(model.alternative!.terms[1]!.factors[0]!.exponent, model.alternative!.terms[1]!.factors[0]!.log),
    ).toBeLessThanOrEqual(1);
  });

  test('on the synthetic benchmark at ±10%: every prior model within its depths, more exact than without, no false dependencies', () => {
    const cases = syntheticCases(41, 24, 0.1, DEFAULT_DESIGN);
    const report = parseTaintReport(
      syntheticTaintReport(
        cases.map((c) => c.fn),
        DEFAULT_DESIGN,
      ),
      'synthetic-taint.json',
    );
    const blind = recoveryRates(cases, ourMethod(), 'median');
    const withPrior = recoveryRates(cases, ourMethod(report), 'median');
    expect(withPrior.falseDependency).toBe(0);
    expect(withPrior.exact).toBeGreaterThan(blind.exact);
    const models = ourMethod(report)(cases);
    for (const c of cases) {
      const depth = new Map<string, number>();
      for (const term of c.fn.terms) for (const f of term.factors) depth.set(f.param, loopDepth(f.exponent, f.log));
      const model = models.get(c.series.callpath)!;
      if (
        model.flags.some(
          (flag) => flag.startsWith('beyond-nest') || flag.startsWith('contention') || flag === 'interaction',
        )
      )
        continue;
      for (const term of model.terms)
        for (const f of term.factors) expect(loopDepth(f.exponent, f.log)).toBeLessThanOrEqual(depth.get(f.param)!);
    }
  });
});

describe('three parameters', () => {
  test('random a × b × c nests: exact counts, and ±5% time shaped by them, get the leading term right', () => {
    const cases = nestCases(77, 8, NEST_DESIGN_3);
    const report = taint3(cases);
    const times = nestTimeSeries(cases, 0.05, 78);
    const result = modelExperiment(
      { source: 'nests', params: [...NEST_DESIGN_3.params], series: [...times, ...cases.map((c) => c.series)] },
      { aggregate: 'median', growth: DEFAULT_GROWTH, taint: report },
    );
    const counts = result.models.filter((m) => m.metric === 'instructions');
    expect(counts.every((m) => m.exact)).toBe(true);
    const outcome = scoreNestTimes(
      cases,
      new Map(result.models.filter((m) => m.metric === 'time').map((m) => [m.callpath, m])),
    );
    expect(outcome).toEqual({ count: 8, leading: 8, falseDependency: 0, countsShaped: 8 });
  });
});

function taint3(cases: ReturnType<typeof nestCases>) {
  return parseTaintReport(nestTaintReport(cases, NEST_DESIGN_3), 'nest-taint.json');
}
