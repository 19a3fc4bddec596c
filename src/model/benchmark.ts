// Recovery statistics of the modeler on synthetic functions: does the model have exactly the
// true function's terms, a parameter the function does not depend on, or lack one it does?
import { sameExponent } from './exponents.js';
import { extrapBaselineModel } from './extrap-baseline.js';
import { Modeler } from './modeler.js';
import { priorFor, type TaintReport } from './prior.js';
import { EXTRA_FAMILIES, FAMILIES, rng, syntheticFunction, syntheticSeries, DEFAULT_DESIGN, type Family, type SyntheticDesign, type SyntheticFunction } from './synthetic.js';
import type { Series, Term } from './types.js';

export interface Outcome {
  exact: boolean;
  falseDependency: boolean;
  missedDependency: boolean;
}

function termKey(term: Term): string {
  return term.factors
    .map((factor) => `${factor.param}^${factor.exponent.toFixed(6)}log${factor.log}`)
    .sort()
    .join('*');
}

/** Compares the non-constant terms of a model with the truth's (the constant is always present). */
export function compareTerms(truth: readonly Term[], model: readonly Term[]): Outcome {
  const truthKeys = truth.filter((t) => t.factors.length > 0).map(termKey).sort();
  const modelKeys = model.filter((t) => t.factors.length > 0).map(termKey).sort();
  const truthParams = new Set(truth.flatMap((t) => t.factors.map((f) => f.param)));
  const modelParams = new Set(model.flatMap((t) => t.factors.map((f) => f.param)));
  const sameExponents =
    truthKeys.length === modelKeys.length &&
    truth
      .filter((t) => t.factors.length > 0)
      .every((t) =>
        model.some(
          (u) =>
            u.factors.length === t.factors.length &&
            t.factors.every((f) => u.factors.some((g) => g.param === f.param && g.log === f.log && sameExponent(g.exponent, f.exponent))),
        ),
      );
  return {
    exact: sameExponents && truthKeys.join('|') === modelKeys.join('|'),
    falseDependency: [...modelParams].some((p) => !truthParams.has(p)),
    missedDependency: [...truthParams].some((p) => !modelParams.has(p)),
  };
}

export type PriorMode = 'none' | 'dependency' | 'loops';

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

export interface Rates {
  count: number;
  exact: number;
  falseDependency: number;
  missedDependency: number;
  perFamily: Record<Family, { count: number; exact: number; falseDependency: number; missedDependency: number }>;
}

export type Method = (series: Series, fn: SyntheticFunction) => Term[];

export function ourMethod(taint?: TaintReport): Method {
  const modeler = new Modeler('median');
  return (series) => {
    const prior = taint ? priorFor(taint, series.callpath, series.params) : undefined;
    return modeler.model(series, prior && prior.status !== 'missing' ? prior.allowed : undefined).terms;
  };
}

export const extrapLikeMethod: Method = (series) => extrapBaselineModel(series);

export function recoveryRates(cases: readonly Case[], method: Method): Rates {
  const perFamily = Object.fromEntries(
    [...FAMILIES, ...EXTRA_FAMILIES].map((family) => [family, { count: 0, exact: 0, falseDependency: 0, missedDependency: 0 }]),
  ) as Rates['perFamily'];
  const total = { count: 0, exact: 0, falseDependency: 0, missedDependency: 0 };
  for (const { fn, series } of cases) {
    const outcome = compareTerms(fn.terms, method(series, fn));
    for (const bucket of [total, perFamily[fn.family]]) {
      bucket.count++;
      if (outcome.exact) bucket.exact++;
      if (outcome.falseDependency) bucket.falseDependency++;
      if (outcome.missedDependency) bucket.missedDependency++;
    }
  }
  return { ...total, perFamily };
}
