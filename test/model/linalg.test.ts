// The least-squares kernel: exact solutions, conditioning, rank deficiency, leave-one-out.
import { describe, expect, test } from 'vitest';
import { LeastSquares } from '../../src/model/linalg.js';

const column = (values: number[]) => Float64Array.from(values);

describe('LeastSquares', () => {
  test('recovers exact coefficients of badly scaled columns', () => {
    const x = [4, 8, 16, 32, 64, 128, 256];
    const ones = column(x.map(() => 1));
    const cube = column(x.map((v) => v ** 3 * Math.log2(v) ** 2));
    const sqrt = column(x.map((v) => Math.sqrt(v)));
    const y = column(x.map((v, i) => 2 + 1e-6 * cube[i]! + 30 * sqrt[i]!));
    const weights = column(y.map((v) => 1 / v) as unknown as number[]);
    const ls = new LeastSquares(8, 4);
    expect(ls.fit([ones, cube, sqrt], 3, weights, y, x.length)).toBe(true);
    expect(ls.coefficients[0]).toBeCloseTo(2, 8);
    expect(ls.coefficients[1]! / 1e-6).toBeCloseTo(1, 8);
    expect(ls.coefficients[2]).toBeCloseTo(30, 8);
    expect(ls.rss).toBeLessThan(1e-20);
  });

  test('nested prefixes give the RSS of each smaller model', () => {
    const x = [1, 2, 3, 4, 5, 6];
    const y = column([1.1, 1.9, 3.2, 3.9, 5.1, 6.0]);
    const ones = column(x.map(() => 1));
    const linear = column(x);
    const weights = column(x.map(() => 1));
    const ls = new LeastSquares(6, 2);
    ls.fit([ones, linear], 2, weights, y, 6);
    const both = ls.prefixRss[1]!;
    const constantOnly = ls.prefixRss[0]!;
    const mean = y.reduce((a, b) => a + b, 0) / 6;
    expect(constantOnly).toBeCloseTo(
      y.reduce((sum, v) => sum + (v - mean) ** 2, 0),
      10,
    );
    expect(both).toBeCloseTo(ls.rss, 12);
  });

  test('refuses linearly dependent columns', () => {
    const ones = column([1, 1, 1, 1]);
    const twice = column([2, 2, 2, 2]);
    const ls = new LeastSquares(4, 2);
    expect(ls.fit([ones, twice], 2, column([1, 1, 1, 1]), column([1, 2, 3, 4]), 4)).toBe(false);
  });

  test('PRESS from the hat matrix equals brute-force leave-one-out', () => {
    const x = [1, 2, 3, 5, 8, 13, 21];
    const y = [3.1, 4.8, 7.2, 11.1, 16.7, 27.5, 43.9];
    const w = y.map((v) => 1 / v);
    const ones = column(x.map(() => 1));
    const linear = column(x);
    const ls = new LeastSquares(7, 2);
    ls.fit([ones, linear], 2, column(w), column(y), 7);
    const press = ls.press();
    let brute = 0;
    const small = new LeastSquares(6, 2);
    for (let leave = 0; leave < x.length; leave++) {
      const keep = x.map((_, i) => i).filter((i) => i !== leave);
      small.fit(
        [column(keep.map(() => 1)), column(keep.map((i) => x[i]!))],
        2,
        column(keep.map((i) => w[i]!)),
        column(keep.map((i) => y[i]!)),
        6,
      );
      const predicted = small.coefficients[0]! + small.coefficients[1]! * x[leave]!;
      brute += (w[leave]! * (y[leave]! - predicted)) ** 2;
    }
    expect(press).toBeCloseTo(brute, 10);
    expect(ls.prefixPress[1]).toBeCloseTo(brute, 10);
  });
});
