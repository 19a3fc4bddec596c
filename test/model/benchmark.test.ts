// The benchmark's instruments: named designs, the shape distribution, and the best-fit ceiling.
import { describe, expect, test } from 'vitest';
import { bestFitCeiling, compareTerms, ourMethod, recoveryRates, syntheticCases } from '../../bench/model/benchmark.js';
import { EXTRAP_SHAPES, sameExponent } from '../../src/model/exponents.js';
import {
  COMMON_SHAPES,
  DEFAULT_DESIGN,
  FAMILIES,
  NAMED_DESIGNS,
  rng,
  syntheticFunction,
} from '../../bench/model/synthetic.js';

describe('synthetic designs', () => {
  test("the headline design is the default one and every named design keeps the issue's envelope", () => {
    expect(NAMED_DESIGNS.default).toBe(DEFAULT_DESIGN);
    for (const design of Object.values(NAMED_DESIGNS)) {
      expect(design.params).toEqual(['p', 'n']);
      expect(design.values[0]).toHaveLength(5);
      expect(design.values[1]).toHaveLength(5);
      expect(design.repetitions).toBe(5);
    }
  });

  test("factors are drawn from the design's shapes", () => {
    expect(COMMON_SHAPES).toHaveLength(8);
    const random = rng(7);
    const design = NAMED_DESIGNS['wide-common']!;
    for (let i = 0; i < 50; i++) {
      const fn = syntheticFunction(random, 'mixed', `f${i}`, design);
      for (const factor of fn.terms.flatMap((t) => t.factors)) {
        expect(COMMON_SHAPES.some((s) => sameExponent(s.exponent, factor.exponent) && s.log === factor.log)).toBe(true);
      }
    }
  });

  test("cases use the design's parameter values", () => {
    const cases = syntheticCases(3, 2, 0.01, NAMED_DESIGNS.wide!);
    expect(cases).toHaveLength(2 * FAMILIES.length);
    expect(new Set(cases[0]!.series.points.map((p) => p.coords[0]))).toEqual(new Set([4, 16, 64, 256, 1024]));
  });
});

describe('best-fit ceiling', () => {
  test('without noise the true shapes fit best (exactly)', () => {
    const cases = syntheticCases(5, 6, 0, DEFAULT_DESIGN);
    const ceiling = bestFitCeiling(cases, 'median');
    expect(ceiling.exact).toBe(ceiling.count);
    expect(ceiling.perFamily.constant?.exact).toBe(6);
  });

  test('drops with noise; least squares does not beat it by more than chance, the bounded fit does', () => {
    const quiet = syntheticCases(11, 10, 0.01);
    const loud = syntheticCases(11, 10, 0.1);
    const a = bestFitCeiling(quiet, 'median');
    const b = bestFitCeiling(loud, 'median');
    expect(a.exact).toBeGreaterThanOrEqual(b.exact);
    // Least squares on the medians (structure unknown) does not beat the ceiling by much.
    const leastSquares = recoveryRates(loud, ourMethod(undefined, 'median', 'least-squares'), 'median');
    expect(leastSquares.exact).toBeLessThanOrEqual(b.exact + 2);
    // The uniform noise is recognized as bounded, and covering every repetition beats any fit to
    // aggregated values.
    const bounded = recoveryRates(loud, ourMethod(), 'median');
    expect(bounded.exact).toBeGreaterThanOrEqual(b.exact + 5);
  });

  test('a claimed truth that the data do not support is not the best fit', () => {
    const [one] = syntheticCases(1, 1, 0, DEFAULT_DESIGN, ['single']);
    const fn = one!.fn;
    const shape = EXTRAP_SHAPES.find(
      (s) => !fn.terms[1]!.factors.some((f) => sameExponent(f.exponent, s.exponent) && f.log === s.log),
    )!;
    const wrong = {
      ...fn,
      terms: [
        fn.terms[0]!,
        {
          ...fn.terms[1]!,
          factors: fn.terms[1]!.factors.map((f) => ({ ...f, exponent: shape.exponent, log: shape.log })),
        },
      ],
    };
    // Data from the truth, judged against a claimed truth with another shape: the real one fits better.
    expect(bestFitCeiling([{ fn: wrong, series: one!.series }], 'median').exact).toBe(0);
    expect(compareTerms(fn.terms, wrong.terms).exact).toBe(false);
  });
});
