// Recovery statistics of the modeler on synthetic functions: does the model have exactly the
// true function's terms, a parameter the function does not depend on, or lack one it does?
import { aggregate as aggregateValues } from './aggregate.js';
import { evalShape } from './exponents.js';
import { extrapBaselineModel } from './extrap-baseline.js';
import { LeastSquares } from './linalg.js';
import { DEFAULT_GROWTH, modelExperiment } from './modeler.js';
import type { TaintReport } from './prior.js';
import { relativeWeights } from './search.js';
import {
  DEFAULT_DESIGN,
  EXTRA_FAMILIES,
  FAMILIES,
  rng,
  syntheticFunction,
  syntheticSeries,
  type Family,
  type SyntheticDesign,
  type SyntheticFunction,
} from './synthetic.js';
import type { Aggregate, Series, Term } from './types.js';

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
    .map((t) => t.factors.map((f) => f.param).sort().join('*'))
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
): Case[] {
  const random = rng(seed);
  const cases: Case[] = [];
  for (const family of families) {
    for (let i = 0; i < perFamily; i++) {
      const fn = syntheticFunction(random, family, `${family}_${i}`, design);
      cases.push({ fn, series: syntheticSeries(random, fn, noise, design) });
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
export function ourMethod(taint?: TaintReport, aggregate: Aggregate = 'median'): Method {
  return (cases) => {
    const report = modelExperiment(
      { source: 'synthetic', params: cases[0]?.series.params ?? [], series: cases.map((c) => c.series) },
      { aggregate, growth: DEFAULT_GROWTH, taint },
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
        term.factors.reduce((v, f) => v * evalShape(point.coords[series.params.indexOf(f.param)]!, f.exponent, f.log), 1),
      ),
    );
  }
  const ls = new LeastSquares(n, columns.length);
  return ls.fit(columns, columns.length, weights, y, n) ? ls.rss : Infinity;
}

function emptyTally(): Tally {
  return { count: 0, exact: 0, structure: 0, falseDependency: 0, missedDependency: 0, dataFavorWrong: 0, contentionFlags: 0, tooNarrowFlags: 0 };
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
    const wrongFitsBetter = !outcome.exact && refitRss(series, fn.terms, aggregate) > refitRss(series, result.terms, aggregate);
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

export { EXTRA_FAMILIES, FAMILIES };
