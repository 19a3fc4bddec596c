// What exact counts say about the other models of the same experiment: a noisy metric (time) of a
// call path is first fitted with the term set of that call path's exact counts, only the
// coefficients refitted (time ≈ a + b·counts); the free search's model is kept only when the data
// reject that shape, and then the two disagree (memory-bound code, contention). Also the checks of
// a model against its loop nest.
import { ROOT_CALLPATH } from './design.js';
import { loopDepth } from './exponents.js';
import { evaluateModel } from './format.js';
import { relativeWeights } from './search.js';
import { smape } from './smape.js';
import type { Series, Term } from './types.js';

/** A closed form is thin when fewer points than this lie beyond its coefficients. */
export const MIN_CHECKS = 2;
/**
 * How much worse (in relative RSS over the noise variance) the counts' shape may fit than the free
 * search before the data are taken to reject it: the free search picks from ~60 shapes per
 * parameter and fits noise, so the margin is the search's contention threshold.
 */
export const COUNTS_REJECT = 25;
/** Metrics whose exact forms shape a whole run's time, in order of preference. */
const COUNT_METRICS = ['instructions'];

export interface CountsForm {
  series: Series;
  terms: Term[];
}

export interface CountsShape {
  /** The metric of the counts. */
  metric: string;
  /** The counts' closed form. */
  shapeTerms: Term[];
  /** The counts' terms with the coefficients fitted to this series. */
  terms: Term[];
  accepted: boolean;
  smape: number;
}

function sameParams(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, l) => p === b[l]);
}

/**
 * The exact form that shapes a noisy series: the same call path's in another metric, or for the
 * whole run (`<root>`) without one, the sum of every call path's exact instruction counts.
 */
export function countsShapeFor(
  series: Series,
  forms: readonly CountsForm[],
): { metric: string; terms: Term[] } | undefined {
  const candidates = forms.filter(
    (form) => form.series.metric !== series.metric && sameParams(form.series.params, series.params),
  );
  const own = candidates.find((form) => form.series.callpath === series.callpath);
  if (own) return { metric: own.series.metric, terms: own.terms };
  if (series.callpath !== ROOT_CALLPATH) return undefined;
  const metrics = [...new Set(candidates.map((form) => form.series.metric))];
  const metric = COUNT_METRICS.find((name) => metrics.includes(name)) ?? metrics[0];
  if (metric === undefined) return undefined;
  return {
    metric,
    terms: sumTerms(candidates.filter((form) => form.series.metric === metric).flatMap((form) => form.terms)),
  };
}

function factorsKey(term: Term): string {
  return term.factors
    .map((f) => `${f.param}^${f.exponent}l${f.log}`)
    .sort()
    .join('*');
}

/** Terms with the same factors merged (coefficients added); zero terms dropped. */
export function sumTerms(terms: readonly Term[]): Term[] {
  const merged = new Map<string, Term>();
  for (const term of terms) {
    const key = factorsKey(term);
    const current = merged.get(key);
    if (current) current.coefficient += term.coefficient;
    else merged.set(key, { coefficient: term.coefficient, factors: term.factors.map((f) => ({ ...f })) });
  }
  const size = (term: Term) => term.factors.reduce((sum, f) => sum + f.exponent + 0.5 * f.log, 0);
  // The constant first, then the fastest-growing terms first, as exact models are written.
  return [...merged.values()]
    .filter((term) => term.coefficient !== 0 || term.factors.length === 0)
    .sort((a, b) => size(b) - size(a) || 0)
    .sort((a, b) => Number(a.factors.length > 0) - Number(b.factors.length > 0));
}

interface Aggregated {
  at: Record<string, number>[];
  y: Float64Array;
  noiseVar: number;
}

function relativeRss(data: Aggregated, predict: (i: number) => number, weights: Float64Array): number {
  let rss = 0;
  for (let i = 0; i < data.y.length; i++) {
    const r = (predict(i) - data.y[i]!) * weights[i]!;
    rss += r * r;
  }
  return rss;
}

/**
 * Fits `series` (aggregated values `y`, free model `freeTerms`) as a + b·counts and judges it
 * against the free model on the noise the repetitions show.
 */
export function fitCountsShape(
  series: Series,
  free: { terms: Term[]; aggregated: Float64Array; noiseVar: number },
  shape: { metric: string; terms: Term[] },
): CountsShape {
  const points = series.points.filter((point) => point.values.length > 0);
  const at = points.map((point) => Object.fromEntries(series.params.map((p, l) => [p, point.coords[l]!])));
  const data: Aggregated = { at, y: free.aggregated, noiseVar: free.noiseVar };
  const n = data.y.length;
  const weights = new Float64Array(n);
  relativeWeights(data.y, weights, n);
  const g = at.map((point) => evaluateModel(shape.terms, point));
  // Weighted least squares of y ≈ a + b·g, by the normal equations of two columns.
  let s00 = 0,
    s01 = 0,
    s11 = 0,
    t0 = 0,
    t1 = 0;
  for (let i = 0; i < n; i++) {
    const u = weights[i]! * weights[i]!;
    s00 += u;
    s01 += u * g[i]!;
    s11 += u * g[i]! * g[i]!;
    t0 += u * data.y[i]!;
    t1 += u * g[i]! * data.y[i]!;
  }
  const det = s00 * s11 - s01 * s01;
  const b = det !== 0 ? (s00 * t1 - s01 * t0) / det : 0;
  const a = det !== 0 ? (t0 - b * s01) / s00 : t0 / s00;
  const shapedRss = relativeRss(data, (i) => a + b * g[i]!, weights);
  const freeRss = relativeRss(data, (i) => evaluateModel(free.terms, at[i]!), weights);
  const dof = Math.max(1, n - free.terms.length);
  const sigma2 = Math.max(Number.isFinite(data.noiseVar) ? data.noiseVar : 0, freeRss / dof, 1e-14);
  const accepted = b > 0 && n >= 3 && (shapedRss - freeRss) / sigma2 <= COUNTS_REJECT;
  const constant = shape.terms
    .filter((term) => term.factors.length === 0)
    .reduce((sum, term) => sum + term.coefficient, 0);
  const terms: Term[] = [
    { coefficient: a + b * constant, factors: [] },
    ...shape.terms
      .filter((term) => term.factors.length > 0)
      .map((term) => ({ coefficient: b * term.coefficient, factors: term.factors.map((f) => ({ ...f })) })),
  ];
  return {
    metric: shape.metric,
    shapeTerms: shape.terms,
    terms,
    accepted,
    smape: smape(
      data.y,
      at.map((point) => evaluateModel(terms, point)),
    ),
  };
}

/**
 * `beyond-nest:p` for each parameter a term grows in faster than the loop depth over it allows:
 * x^e·log2^g(x) needs ⌈e⌉ + g nested loops over x (each multiplies by at most x or log2 x).
 */
export function nestFlags(terms: readonly Term[], degrees: readonly number[], params: readonly string[]): string[] {
  const flags: string[] = [];
  params.forEach((p, l) => {
    const degree = degrees[l]!;
    if (degree <= 0) return;
    const beyond = terms.some((term) =>
      term.factors.some((f) => f.param === p && loopDepth(f.exponent, f.log) > degree),
    );
    if (beyond) flags.push(`beyond-nest:${p}`);
  });
  return flags;
}
