// Each family of the benchmark is recovered exactly (terms and exponents) from noisy measurements.
import { describe, expect, test } from 'vitest';
import { Modeler, modelExperiment, DEFAULT_GROWTH } from '../../src/model/modeler.js';
import { compareTerms } from '../../bench/model/benchmark.js';
import { formatModel } from '../../src/model/format.js';
import type { Term } from '../../src/model/types.js';
import { grid1, grid2, log2 } from './helpers.js';

const f = (param: string, exponent: number, log = 0) => ({ param, exponent, log });
const term = (coefficient: number, ...factors: ReturnType<typeof f>[]): Term => ({ coefficient, factors });

const cases: Array<[string, Term[], (p: number, n: number) => number]> = [
  ['constant', [term(12.5)], () => 12.5],
  ['single: n^2', [term(3), term(0.02, f('n', 2))], (_p, n) => 3 + 0.02 * n * n],
  ['single: p^(1/2)·log2(p)', [term(1), term(2, f('p', 0.5, 1))], (p) => 1 + 2 * Math.sqrt(p) * log2(p)],
  [
    'additive: p·log2(p) + n^(3/2)',
    [term(5), term(3, f('p', 1, 1)), term(0.4, f('n', 1.5))],
    (p, n) => 5 + 3 * p * log2(p) + 0.4 * n ** 1.5,
  ],
  ['multiplicative: p^2·n', [term(2), term(0.05, f('p', 2), f('n', 1))], (p, n) => 2 + 0.05 * p * p * n],
  [
    'mixed: p·n^(1/2) + p',
    [term(4), term(0.5, f('p', 1), f('n', 0.5)), term(0.8, f('p', 1))],
    (p, n) => 4 + 0.5 * p * Math.sqrt(n) + 0.8 * p,
  ],
  [
    'full: p^2·n + p^2 + n',
    [term(2), term(0.05, f('p', 2), f('n', 1)), term(3, f('p', 2)), term(4, f('n', 1))],
    (p, n) => 2 + 0.05 * p * p * n + 3 * p * p + 4 * n,
  ],
];

describe('every family is recovered at ±1% noise', () => {
  test.each(cases)('%s', (_name, truth, fn) => {
    for (const seed of [1, 2, 3]) {
      const model = new Modeler('median').model(grid2('main->k', fn, { noise: 0.01, seed }));
      const outcome = compareTerms(truth, model.terms);
      expect(outcome.exact, `seed ${seed}: ${formatModel(model.terms)}`).toBe(true);
      // Coefficients too, within the noise.
      for (const t of truth) {
        const match = model.terms.find(
          (u) => compareTerms([term(0), t], [term(0), u]).exact || (t.factors.length === 0 && u.factors.length === 0),
        );
        expect(match).toBeDefined();
        if (t.factors.length > 0) expect(Math.abs(match!.coefficient / t.coefficient - 1)).toBeLessThan(0.1);
      }
    }
  });

  test('a term with a shape of its own: p·log2(n) + p + log2(n)^2 (beyond one shape per parameter)', () => {
    const truth = [term(4), term(2, f('p', 1), f('n', 0, 1)), term(3, f('p', 1)), term(5, f('n', 0, 2))];
    for (const seed of [1, 2, 4]) {
      const series = grid2('main->k', (p, n) => 4 + 2 * p * log2(n) + 3 * p + 5 * log2(n) ** 2, { seed });
      const model = new Modeler('median').model(series);
      expect(compareTerms(truth, model.terms).exact, formatModel(model.terms)).toBe(true);
    }
  });

  test('one parameter, Extra-P style (x^(4/3) over 10 points)', () => {
    const series = grid1('main', (x) => 7 + 0.3 * x ** (4 / 3), [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
    const model = new Modeler('median').model(series);
    expect(formatModel(model.terms)).toMatch(/^7\.\d* \+ 0\.\d+ \* x\^\(4\/3\)$/);
  });

  test('three parameters: a*b + c', () => {
    const points = [];
    for (const a of [2, 4, 8, 16, 32])
      for (const b of [10, 20, 40, 80, 160])
        for (const c of [1, 2, 4, 8, 16]) {
          const v = 1 + 0.1 * a * b + 2 * c * log2(c + 1) * 0 + 3 * c;
          points.push({ coords: [a, b, c], values: [v * 1.002, v * 0.998, v] });
        }
    const report = modelExperiment(
      {
        source: 't',
        params: ['a', 'b', 'c'],
        series: [{ callpath: 'k', metric: 'time', params: ['a', 'b', 'c'], points }],
      },
      { aggregate: 'median', growth: DEFAULT_GROWTH },
    );
    expect(report.models[0]!.model).toMatch(/^1(\.\d+)? \+ 0\.1\d* \* a \* b \+ 3(\.\d+)? \* c$/);
  });

  test('noise-free measurements without repetitions', () => {
    const series = grid2('main->k', (p, n) => 1 + 0.25 * p * n ** 2, { noise: 0, reps: 1 });
    const model = new Modeler('median').model(series);
    expect(formatModel(model.terms)).toBe('1 + 1/4 * p * n^2');
    expect(model.smape).toBeLessThan(1e-9);
  });

  test('identical values everywhere are a constant with zero error', () => {
    const model = new Modeler('median').model(grid2('main->k', () => 42, { noise: 0 }));
    expect(model.terms).toEqual([{ coefficient: 42, factors: [] }]);
  });

  test('a parameter with a single value is simply not part of the model', () => {
    const series = grid2('main->k', (p) => 2 + p * p, { n: [100] });
    const model = new Modeler('median').model(series);
    expect(formatModel(model.terms)).toMatch(/^2(\.\d+)? \+ (0\.99\d*|1(\.00\d*)?) \* p\^2$/);
  });
});
