// Recovery statistics of the modeler on synthetic functions: does the model have exactly the
// true function's terms, a parameter the function does not depend on, or lack one it does?
import { aggregate as aggregateValues } from '../../src/model/aggregate.js';
import { EXTRAP_SHAPES, evalShape, sameExponent, type Shape } from '../../src/model/exponents.js';
import { extrapBaselineModel } from './extrap-baseline.js';
import { LeastSquares } from '../../src/model/linalg.js';
import { DEFAULT_GROWTH, modelExperiment, type FitMode } from '../../src/model/modeler.js';
import type { TaintView } from '../../src/model/prior.js';
import { relativeWeights } from '../../src/model/search.js';
import {
  DEFAULT_DESIGN,
  EXTRA_FAMILIES,
  FAMILIES,
  rng,
  syntheticFunction,
  syntheticSeries,
  type Family,
  type NoiseDistribution,
  type SyntheticDesign,
  type SyntheticFunction,
} from './synthetic.js';
import type { Aggregate, Series, Term } from '../../src/model/types.js';

export interface Outcome {
  exact: boolean;
  /** The same terms over the same parameter sets, exponents aside. */
  structure: boolean;
  falseDependency: boolean;
  missedDependency: boolean;
}

function factorKey(param: string, exponent: number, log: number): string {
  return `${param}^${exponent.toFixed(6)}log${log}`;
}

function termKey(term: Term): string {
  return term.factors
    .map((factor) => factorKey(factor.param, factor.exponent, factor.log))
    .sort()
    .join('*');
}

function structureKey(terms: readonly Term[]): string {
  return terms
    .filter((t) => t.factors.length > 0)
    .map((t) =>
      t.factors
        .map((f) => f.param)
        .sort()
        .join('*'),
    )
    .sort()
    .join('+');
}

/** Compares the non-constant terms of a model with the truth's (the constant is always present). */
export function compareTerms(truth: readonly Term[], model: readonly Term[]): Outcome {
  const keys = (terms: readonly Term[]) =>
    terms
      .filter((t) => t.factors.length > 0)
      .map(termKey)
      .sort()
      .join('|');
  const truthParams = new Set(truth.flatMap((t) => t.factors.map((f) => f.param)));
  const modelParams = new Set(model.flatMap((t) => t.factors.map((f) => f.param)));
  return {
    exact: keys(truth) === keys(model),
    structure: structureKey(truth) === structureKey(model),
    falseDependency: [...modelParams].some((p) => !truthParams.has(p)),
    missedDependency: [...truthParams].some((p) => !modelParams.has(p)),
  };
}

export interface Case {
  fn: SyntheticFunction;
  series: Series;
}

/** `perFamily` functions of every family, measured with ±noise, from one seed. */
export function syntheticCases(
  seed: number,
  perFamily: number,
  noise: number,
  design: SyntheticDesign = DEFAULT_DESIGN,
  families: readonly Family[] = FAMILIES,
  distribution: NoiseDistribution = 'uniform',
): Case[] {
  const random = rng(seed);
  const cases: Case[] = [];
  for (const family of families) {
    for (let i = 0; i < perFamily; i++) {
      const fn = syntheticFunction(random, family, `${family}_${i}`, design);
      cases.push({ fn, series: syntheticSeries(random, fn, noise, design, distribution) });
    }
  }
  return cases;
}

export interface Tally {
  count: number;
  exact: number;
  structure: number;
  falseDependency: number;
  missedDependency: number;
  /** Misses where the true terms, refitted, fit the aggregated data worse than the chosen model. */
  dataFavorWrong: number;
  contentionFlags: number;
  tooNarrowFlags: number;
}

export interface Rates extends Tally {
  perFamily: Partial<Record<Family, Tally>>;
}

export interface MethodResult {
  terms: Term[];
  flags: string[];
}

/** Models all cases at once (callpath → result). */
export type Method = (cases: readonly Case[]) => Map<string, MethodResult>;

/** Our modeler through the whole pipeline (modelExperiment), with or without a taint report. */
export function ourMethod(taint?: TaintView, aggregate: Aggregate = 'median', fit: FitMode = 'auto'): Method {
  return (cases) => {
    const report = modelExperiment(
      { source: 'synthetic', params: cases[0]?.series.params ?? [], series: cases.map((c) => c.series) },
      { aggregate, growth: DEFAULT_GROWTH, taint, fit },
    );
    return new Map(report.models.map((model) => [model.callpath, { terms: model.terms, flags: model.flags }]));
  };
}

export const extrapLikeMethod: Method = (cases) =>
  new Map(cases.map((c) => [c.series.callpath, { terms: extrapBaselineModel(c.series), flags: [] }]));

/** Weighted (relative) RSS of the terms' structure refitted to the aggregated values. */
export function refitRss(series: Series, terms: readonly Term[], how: Aggregate): number {
  const n = series.points.length;
  const y = Float64Array.from(series.points, (point) => aggregateValues(point.values, how));
  const weights = new Float64Array(n);
  relativeWeights(y, weights, n);
  const columns = [new Float64Array(n).fill(1)];
  for (const term of terms) {
    if (term.factors.length === 0) continue;
    columns.push(
      Float64Array.from(series.points, (point) =>
        term.factors.reduce(
          (v, f) => v * evalShape(point.coords[series.params.indexOf(f.param)]!, f.exponent, f.log),
          1,
        ),
      ),
    );
  }
  const ls = new LeastSquares(n, columns.length);
  return ls.fit(columns, columns.length, weights, y, n) ? ls.rss : Infinity;
}

function emptyTally(): Tally {
  return {
    count: 0,
    exact: 0,
    structure: 0,
    falseDependency: 0,
    missedDependency: 0,
    dataFavorWrong: 0,
    contentionFlags: 0,
    tooNarrowFlags: 0,
  };
}

export function recoveryRates(cases: readonly Case[], method: Method, aggregate: Aggregate = 'median'): Rates {
  const results = method(cases);
  const total = emptyTally();
  const perFamily: Partial<Record<Family, Tally>> = {};
  for (const { fn, series } of cases) {
    const result = results.get(series.callpath);
    if (!result) throw new Error(`no model for ${series.callpath}`);
    const outcome = compareTerms(fn.terms, result.terms);
    const family = (perFamily[fn.family] ??= emptyTally());
    const wrongFitsBetter =
      !outcome.exact && refitRss(series, fn.terms, aggregate) > refitRss(series, result.terms, aggregate);
    for (const bucket of [total, family]) {
      bucket.count++;
      if (outcome.exact) bucket.exact++;
      if (outcome.structure) bucket.structure++;
      if (outcome.falseDependency) bucket.falseDependency++;
      if (outcome.missedDependency) bucket.missedDependency++;
      if (wrongFitsBetter) bucket.dataFavorWrong++;
      if (result.flags.some((flag) => flag.startsWith('contention:'))) bucket.contentionFlags++;
      if (result.flags.some((flag) => flag.startsWith('too-narrow:'))) bucket.tooNarrowFlags++;
    }
  }
  return { ...total, perFamily };
}

/**
 * The ceiling of any modeler that chooses exponents by least-squares fit to aggregated values: given the true term structure (which
 * parameters, combined how; what a perfect prior would give) and only the `shapes` the functions
 * were drawn from, is the true choice of shapes the best-fitting one (lowest relative RSS on the
 * aggregated values, among every assignment of shapes to the parameters the truth uses)?
 * `exact` counts the cases where it is. Modelers that rank by fit cannot beat this rate on average.
 */
export function bestFitCeiling(
  cases: readonly Case[],
  aggregate: Aggregate = 'median',
  shapes: readonly Shape[] = EXTRAP_SHAPES,
): Rates {
  const total = emptyTally();
  const perFamily: Partial<Record<Family, Tally>> = {};
  for (const { fn, series } of cases) {
    const n = series.points.length;
    const y = Float64Array.from(series.points, (point) => aggregateValues(point.values, aggregate));
    const weights = new Float64Array(n);
    relativeWeights(y, weights, n);
    const terms = fn.terms.filter((t) => t.factors.length > 0);
    const used = [...new Set(terms.flatMap((t) => t.factors.map((f) => f.param)))];
    const truth = used.map((param) =>
      shapes.findIndex((shape) =>
        terms.some((t) =>
          t.factors.some((f) => f.param === param && sameExponent(f.exponent, shape.exponent) && f.log === shape.log),
        ),
      ),
    );
    let exact = true;
    if (used.length > 0 && truth.every((index) => index >= 0)) {
      // Each parameter's shape columns over the points, once.
      const basis = used.map((param) => {
        const l = series.params.indexOf(param);
        return shapes.map((shape) =>
          Float64Array.from(series.points, (point) => evalShape(point.coords[l]!, shape.exponent, shape.log)),
        );
      });
      const ls = new LeastSquares(n, terms.length + 1);
      const columns: Float64Array[] = [new Float64Array(n).fill(1), ...terms.map(() => new Float64Array(n))];
      const rssOf = (choice: readonly number[]): number => {
        terms.forEach((term, t) => {
          const column = columns[t + 1]!;
          column.fill(1);
          for (const factor of term.factors) {
            const values = basis[used.indexOf(factor.param)]![choice[used.indexOf(factor.param)]!]!;
            for (let i = 0; i < n; i++) column[i]! *= values[i]!;
          }
        });
        return ls.fit(columns, columns.length, weights, y, n) ? ls.rss : Infinity;
      };
      const truthRss = rssOf(truth);
      const choice = used.map(() => 0);
      for (;;) {
        if (choice.some((c, k) => c !== truth[k]) && rssOf(choice) <= truthRss) {
          exact = false;
          break;
        }
        let k = 0;
        while (k < choice.length && ++choice[k]! === shapes.length) choice[k++] = 0;
        if (k === choice.length) break;
      }
    }
    const family = (perFamily[fn.family] ??= emptyTally());
    for (const bucket of [total, family]) {
      bucket.count++;
      if (exact) {
        bucket.exact++;
        bucket.structure++;
      }
    }
  }
  return { ...total, perFamily };
}

export { EXTRA_FAMILIES, FAMILIES };
