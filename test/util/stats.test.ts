// The shared statistics helpers: median of timings, population spread over ranks.
import { expect, test } from 'vitest';
import { median, populationSpread } from '../../src/util/stats.js';

test('median of odd and even counts, input left unsorted', () => {
  const values = [5, 1, 3];
  expect(median(values)).toBe(3);
  expect(values).toEqual([5, 1, 3]);
  expect(median([4, 1, 3, 2])).toBe(2.5);
});

test('population spread: mean, population CV, extremes and imbalance', () => {
  const spread = populationSpread([2, 4, 6]);
  expect(spread.mean).toBe(4);
  expect(spread.cv).toBeCloseTo(Math.sqrt(8 / 3) / 4, 12);
  expect(spread).toMatchObject({ min: 2, max: 6, imbalance: 1.5 });
  expect(populationSpread([])).toEqual({ mean: 0, cv: 0, min: 0, max: 0, imbalance: 1 });
});
