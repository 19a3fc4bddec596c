// Repetitions, extrapolation, ranking, scalability bugs, and exponent refinement.
import { describe, expect, test } from 'vitest';
import { aggregate, spreadOf } from '../../src/model/aggregate.js';
import { DEFAULT_GROWTH, exceeds, growthOf, modelExperiment, type ModelingOptions } from '../../src/model/modeler.js';
import { evaluateModel, formatModel } from '../../src/model/format.js';
import type { Experiment, Series } from '../../src/model/types.js';
import { grid1, grid2, log2 } from './helpers.js';

const experiment = (series: Series[], params = ['p', 'n']): Experiment => ({ source: 'm', params, series });
const run = (series: Series[], options: Partial<ModelingOptions> = {}, params?: string[]) =>
  modelExperiment(experiment(series, params), { aggregate: 'median', growth: DEFAULT_GROWTH, ...options });

describe('repetitions', () => {
  test('aggregates by median (default), mean, min and max', () => {
    const values = [3, 1, 10, 2, 4];
    expect(aggregate(values, 'median')).toBe(3);
    expect(aggregate([1, 2, 3, 10], 'median')).toBe(2.5);
    expect(aggregate(values, 'mean')).toBe(4);
    expect(aggregate(values, 'min')).toBe(1);
    expect(aggregate(values, 'max')).toBe(10);
  });

  test('the aggregate changes what is modeled', () => {
    const points = [1, 2, 4, 8, 16].map((x) => ({ coords: [x], values: [x, 1.3 * x, 1.1 * x] }));
    const series = { callpath: 'k', metric: 'time', params: ['x'], points };
    const at16 = (how: 'median' | 'mean' | 'min' | 'max') =>
      run([series], { aggregate: how }, ['x']).models[0]!.prediction;
    expect(at16('median')).toBeCloseTo(17.6, 6);
    expect(at16('mean')).toBeCloseTo(18.133333, 5);
    expect(at16('min')).toBeCloseTo(16, 6);
    expect(at16('max')).toBeCloseTo(20.8, 6);
  });

  test('an outlier the median ignores does not hide the model', () => {
    const points = [1, 2, 4, 8, 16].map((x) => ({
      coords: [x],
      values: [10 * x, 10.1 * x, 9.9 * x, 10 * x, 1000 * x],
    }));
    const model = run([{ callpath: 'k', metric: 'time', params: ['x'], points }], {}, ['x']).models[0]!;
    expect(model.model).toMatch(
      /^(-?\d\.\d+e-\d+ \+ |0 \+ )?10(\.\d+)? \* x$|^-?\d+(\.\d+)?(e-\d+)? [-+] .*10(\.\d+)? \* x$/,
    );
    expect(model.prediction).toBeCloseTo(160, 0);
    expect(model.flags).toContain('unreliable');
  });

  test('a coefficient of variation above 0.1 flags the data set unreliable', () => {
    const spread = spreadOf([{ values: [1, 1.3, 0.7] }, { values: [2, 2, 2] }], 'median');
    expect(spread.cv).toBeCloseTo(0.15, 10);
    const noisy = run([grid2('main->noisy', (_p, n) => 5 + n, { noise: 0.4 })]).models[0]!;
    const calm = run([grid2('main->calm', (_p, n) => 5 + n, { noise: 0.05 })]).models[0]!;
    expect(noisy.cv).toBeGreaterThan(0.1);
    expect(noisy.flags).toContain('unreliable');
    expect(calm.cv).toBeLessThan(0.1);
    expect(calm.flags).not.toContain('unreliable');
  });
});

describe('extrapolation, ranking and scalability bugs', () => {
  const series = [
    grid2('main->setup', (p) => 50 + 2 * log2(p)),
    grid2('main->solve', (p, n) => 1 + 0.001 * p * n * log2(n)),
    grid2('main->exchange', (p) => 2 + 0.05 * p * p),
    grid2('main->scan', (_p, n) => 3 + 0.5 * n),
  ];

  test('predicts every call path at the target and ranks by the prediction', () => {
    const report = run(series, { target: { p: 1024, n: 4096 } });
    expect(report.targetGiven).toBe(true);
    const byName = Object.fromEntries(report.models.map((m) => [m.callpath, m]));
    // solve: 1 + 0.001 · 1024 · 4096 · 12 ≈ 50,332; exchange: 2 + 0.05 · 1024² ≈ 52,430.
    expect(byName['main->exchange']!.prediction / 52430).toBeCloseTo(1, 1);
    expect(byName['main->solve']!.prediction / 50332).toBeCloseTo(1, 1);
    expect(report.models.map((m) => m.callpath)).toEqual([
      'main->exchange',
      'main->solve',
      'main->scan',
      'main->setup',
    ]);
    expect(report.models.map((m) => m.rank)).toEqual([1, 2, 3, 4]);
    for (const m of report.models) expect(m.prediction).toBeCloseTo(evaluateModel(m.terms, { p: 1024, n: 4096 }), 6);
  });

  test('without a target, ranks at the largest measured point', () => {
    const report = run(series);
    expect(report.targetGiven).toBe(false);
    expect(report.target).toEqual({ p: 64, n: 256 });
    expect(report.models[0]!.callpath).toBe('main->exchange');
  });

  test('a threshold of 1 flags growth worse than linear: n·log n and p^2, not log p or n', () => {
    const flags = Object.fromEntries(
      run(series, { growth: { default: 1, perParam: {} } }).models.map((m) => [m.callpath, m.flags]),
    );
    expect(flags['main->solve']).toEqual(['scalability-bug:n']);
    expect(flags['main->exchange']).toEqual(['scalability-bug:p']);
    expect(flags['main->scan']).toEqual([]);
    expect(flags['main->setup']).toEqual([]);
  });

  test('thresholds per parameter', () => {
    const report = run(series, { growth: { default: 1, perParam: { n: 2, p: 0 } } });
    const flags = Object.fromEntries(report.models.map((m) => [m.callpath, m.flags]));
    expect(flags['main->solve']).toEqual(['scalability-bug:p']);
    expect(flags['main->exchange']).toEqual(['scalability-bug:p']);
    expect(flags['main->setup']).toEqual(['scalability-bug:p']);
    expect(flags['main->scan']).toEqual([]);
  });

  test('growth: the leading (exponent, log) per parameter of growing terms', () => {
    const growth = growthOf([
      { coefficient: 1, factors: [] },
      {
        coefficient: 2,
        factors: [
          { param: 'n', exponent: 1, log: 1 },
          { param: 'p', exponent: 0.5, log: 0 },
        ],
      },
      { coefficient: 3, factors: [{ param: 'n', exponent: 1, log: 0 }] },
      { coefficient: -1, factors: [{ param: 'p', exponent: 3, log: 0 }] },
    ]);
    expect(growth).toEqual({ n: { exponent: 1, log: 1 }, p: { exponent: 0.5, log: 0 } });
    expect(exceeds({ exponent: 1, log: 1 }, 1)).toBe(true);
    expect(exceeds({ exponent: 1, log: 0 }, 1)).toBe(false);
    expect(exceeds({ exponent: 4 / 3, log: 0 }, 1.5)).toBe(false);
  });

  test('metrics rank separately', () => {
    const report = run([
      grid2('a', (p) => 1 + p, { metric: 'time' }),
      grid2('b', (p) => 1 + p * p, { metric: 'time' }),
      grid2('a', (p) => 100 + p, { metric: 'bytes' }),
    ]);
    expect(report.metrics.sort()).toEqual(['bytes', 'time']);
    expect(report.models.filter((m) => m.metric === 'bytes').map((m) => m.rank)).toEqual([1]);
    expect(report.models.filter((m) => m.metric === 'time').map((m) => m.rank)).toEqual([1, 2]);
  });
});

describe('refinement of exponents off the grid', () => {
  test.each([
    [0.9, 0.9],
    [1.15, 1.15],
    [2.9, 2.9],
  ])('x^%s', (exponent, expected) => {
    const series = grid1('k', (x) => 3 + 0.7 * x ** exponent, [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 0.01, 3);
    const model = run([series], {}, ['x']).models[0]!;
    expect(model.flags).toContain('refined:x');
    const factor = model.terms[1]!.factors[0]!;
    expect(factor.log).toBe(0);
    expect(Math.abs(factor.exponent - expected)).toBeLessThan(0.02);
    expect(model.model).toMatch(/x\^\(\d\.\d+\)/);
  });

  test('grid exponents are left alone', () => {
    const series = grid1('k', (x) => 3 + 0.7 * x ** 1.5, [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 0.01, 3);
    const model = run([series], {}, ['x']).models[0]!;
    expect(model.flags.filter((f) => f.startsWith('refined'))).toEqual([]);
    expect(formatModel(model.terms)).toMatch(/x\^\(3\/2\)$/);
  });
});
