// The noise shape read off repetitions alone, and the fit it selects: bounded noise is fitted by
// covering every repetition (minimax), anything else by least squares on the aggregated values.
import { describe, expect, test } from 'vitest';
import { estimateNoise } from '../../src/model/noise.js';
import { DEFAULT_GROWTH, modelExperiment } from '../../src/model/modeler.js';
import { relativeError, rng } from '../../bench/model/synthetic.js';
import type { Series } from '../../src/model/types.js';

/** `count` call paths on a 5×5 grid with 5 repetitions of the given relative error each. */
function experiment(
  count: number,
  error: (random: () => number) => number,
  seed = 1,
  level = (_k: number) => 0.05,
): Series[] {
  const random = rng(seed);
  return Array.from({ length: count }, (_, k) => ({
    callpath: `main->f${k}`,
    metric: 'time',
    params: ['p', 'n'],
    points: [4, 8, 16, 32, 64].flatMap((p) =>
      [16, 32, 64, 128, 256].map((n) => ({
        coords: [p, n],
        values: Array.from({ length: 5 }, () => (3 + p * n) * (1 + (level(k) / 0.05) * error(random))),
      })),
    ),
  }));
}

const uniform = (random: () => number) => relativeError(random, 0.05, 'uniform');
const normal = (random: () => number) => relativeError(random, 0.05, 'normal');
/** Mostly quiet, now and then a 30% spike: interference. */
const spiky = (random: () => number) => (random() < 0.04 ? 0.3 * random() : relativeError(random, 0.02, 'normal'));

describe('noise shape from repetitions', () => {
  test("uniform jitter is bounded, with the uniform distribution's excess kurtosis (−1.2)", () => {
    const estimate = estimateNoise(experiment(40, uniform));
    expect(estimate.shape).toBe('bounded');
    expect(estimate.excessKurtosis).toBeGreaterThan(-1.4);
    expect(estimate.excessKurtosis).toBeLessThan(-1.0);
    expect(estimate.samples).toBe(40 * 25 * 5);
  });

  test('normal noise is normal, spikes are heavy-tailed', () => {
    const gauss = estimateNoise(experiment(40, normal));
    expect(gauss.shape).toBe('normal');
    expect(Math.abs(gauss.excessKurtosis)).toBeLessThan(3 * gauss.standardError);
    expect(estimateNoise(experiment(40, spiky)).shape).toBe('heavy');
  });

  test('call paths with different noise levels pool without looking heavy-tailed', () => {
    const estimate = estimateNoise(experiment(40, uniform, 3, (k) => (k % 2 === 0 ? 0.01 : 0.1)));
    expect(estimate.shape).toBe('bounded');
  });

  test('one call path is too little evidence to leave least squares', () => {
    const estimate = estimateNoise(experiment(1, uniform));
    expect(estimate.excessKurtosis).toBeLessThan(0);
    expect(estimate.shape).toBe('normal');
  });

  test('deterministic metrics and single runs say nothing about noise', () => {
    const exact = experiment(3, () => 0);
    expect(estimateNoise(exact)).toMatchObject({ shape: 'normal', samples: 0 });
    const single = experiment(3, uniform).map((s) => ({
      ...s,
      points: s.points.map((p) => ({ ...p, values: p.values.slice(0, 1) })),
    }));
    expect(estimateNoise(single).samples).toBe(0);
  });
});

describe('the fit follows the noise', () => {
  const options = { aggregate: 'median' as const, growth: DEFAULT_GROWTH };

  test('auto: minimax for bounded noise, least squares for normal noise; --fit overrides', () => {
    const bounded = modelExperiment({ source: 'u', params: ['p', 'n'], series: experiment(20, uniform) }, options);
    expect(bounded.noise).toEqual([expect.objectContaining({ metric: 'time', shape: 'bounded', fit: 'minimax' })]);
    const gauss = modelExperiment({ source: 'g', params: ['p', 'n'], series: experiment(20, normal) }, options);
    expect(gauss.noise[0]).toMatchObject({ shape: 'normal', fit: 'least-squares' });
    const forced = modelExperiment(
      { source: 'u', params: ['p', 'n'], series: experiment(20, uniform) },
      { ...options, fit: 'least-squares' },
    );
    expect(forced.noise[0]).toMatchObject({ shape: 'bounded', fit: 'least-squares' });
    for (const report of [bounded, gauss, forced]) {
      const right = report.models.filter((model) => /^[\d.]+ \+ ([\d.e-]+ \* )?p \* n$/.test(model.model));
      expect(right.length).toBeGreaterThanOrEqual(18);
    }
  });

  test('each metric is judged on its own repetitions', () => {
    const series = [...experiment(20, uniform), ...experiment(20, normal, 2).map((s) => ({ ...s, metric: 'cycles' }))];
    const report = modelExperiment({ source: 'mixed', params: ['p', 'n'], series }, options);
    expect(Object.fromEntries(report.noise.map((n) => [n.metric, n.fit]))).toEqual({
      time: 'minimax',
      cycles: 'least-squares',
    });
  });
});
