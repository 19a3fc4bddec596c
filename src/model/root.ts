// `<root>` is the whole program, consistent with its parts.
//
// `taintlens measure` writes the whole run's wall time as `<root>`'s `time`, and instruction counts
// per call path, exclusive of callees. Instructions get a `<root>` too: at every point, the sum over
// every call path (a call path not reached at a point adds nothing), so the whole program's count is
// exactly the sum of its parts and its model the sum of theirs (root's own exclusive count, what ran
// outside every function region, is one of those parts: `<outside regions>`). Entry counts (visits) have no
// whole-program sum, and a time per call path may be inclusive in other tools' files. After modelling, a whole run whose own model predicts less than its parts
// together at the target takes their sum (flag `parts-sum`): the run contains every part.
import { ROOT_CALLPATH } from './design.js';
import { addFractions, formatFraction, fractionValue, type Fraction } from './rational.js';
import type { ExactModel } from './exact.js';
import type { Experiment, Point, Series, Term } from './types.js';

/** Metrics that count entries into a function, not a cost: folding drops them. */
export const ENTRY_COUNTS: ReadonlySet<string> = new Set(['visits']);
/** Exclusive counts whose whole-program value is the sum over the call paths. */
const SUMMED_METRICS: ReadonlySet<string> = new Set(['instructions']);

/** `<root>`'s value of this metric is the sum of every call path's (withWholeProgram). */
export const isSummedMetric = (metric: string): boolean => SUMMED_METRICS.has(metric);

/** The part of the whole program's count that ran outside every function region (measure's own `<root>` count). */
export const OUTSIDE_REGIONS = '<outside regions>';

/**
 * Adds the values of `point` (the same coordinates, the same runs) to `total`: repetition by
 * repetition where both have as many, else its median to each.
 */
export function addRepetitions(total: Point, point: Point): void {
  if (total.values.length === point.values.length) {
    total.values = total.values.map((value, r) => value + point.values[r]!);
    return;
  }
  const sorted = [...point.values].sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1] ?? 0;
  total.values = total.values.map((value) => value + median);
}

/**
 * The experiment with `<root>`'s instructions as the whole program's: at every point the sum over
 * every call path. A `<root>` series already there holds only what ran outside every function region
 * (`taintlens measure` writes root's exclusive count): it becomes the part OUTSIDE_REGIONS.
 */
export function withWholeProgram(experiment: Experiment): Experiment {
  const wholes = new Map<string, Series>();
  const outside: Series[] = [];
  const metrics = [...new Set(experiment.series.map((series) => series.metric))];
  for (const metric of metrics) {
    if (!SUMMED_METRICS.has(metric)) continue;
    const parts = experiment.series.filter((series) => series.metric === metric);
    if (parts.filter((series) => series.callpath !== ROOT_CALLPATH).length === 0) continue;
    const byPoint = new Map<string, Point>();
    for (const series of parts) {
      if (series.callpath === ROOT_CALLPATH) outside.push({ ...series, callpath: OUTSIDE_REGIONS });
      for (const point of series.points) {
        const key = point.coords.join(',');
        const total = byPoint.get(key);
        if (!total) byPoint.set(key, { coords: [...point.coords], values: [...point.values] });
        else addRepetitions(total, point);
      }
    }
    wholes.set(metric, {
      callpath: ROOT_CALLPATH,
      metric,
      params: [...parts[0]!.params],
      points: [...byPoint.values()],
    });
  }
  if (wholes.size === 0) return experiment;
  const kept = experiment.series.filter((series) => !(series.callpath === ROOT_CALLPATH && wholes.has(series.metric)));
  return { ...experiment, series: [...kept, ...outside, ...wholes.values()] };
}

/** A prediction of the whole run and its parts: the whole is at least the sum of its parts. */
export function wholeAtLeastParts(root: number, parts: readonly number[]): { prediction: number; raised: boolean } {
  const sum = parts.reduce((total, part) => total + Math.max(0, part), 0);
  return sum > root ? { prediction: sum, raised: true } : { prediction: root, raised: false };
}

/** The whole program's model from its parts': their summed terms, and what made any of them inexact. */
export interface WholeForm {
  terms: Term[];
  /** Where every part has an exact form (the caller checks the sum against every point). */
  exact?: Omit<ExactModel, 'leading'>;
  /** The parameters along which some part has no closed form with a value to spare. */
  unexplained: string[];
}

/** What wholeForm reads of each part's model. */
export interface PartModel {
  terms: Term[];
  exact?: ExactModel;
  unexplained?: string[];
}

/**
 * The whole program's model: the sum of its parts' models, so its prediction is exactly theirs
 * together. Exact where every part's is (each checked by its own points; the sum is as well checked
 * as the least of them); undefined while some part has no model yet.
 */
export function wholeForm(
  root: Series,
  selected: readonly Series[],
  modelOf: (part: Series) => PartModel | undefined,
): WholeForm | undefined {
  const parts = selected.filter((series) => series.metric === root.metric && series.callpath !== ROOT_CALLPATH);
  const models = parts.map(modelOf);
  if (parts.length === 0 || models.some((model) => model === undefined)) return undefined;
  const known = models as PartModel[];
  const exact = known.every((model) => model.exact) ? known.map((model) => model.exact!) : undefined;
  return {
    terms: sumOfTerms(
      known.map((model) => model.terms),
      root.params,
    ),
    ...(exact
      ? {
          exact: {
            terms: sumOfTerms(
              exact.map((form) => form.terms),
              root.params,
            ),
            margin: Math.min(...exact.map((form) => form.margin)),
            rational: exact.every((form) => form.rational),
          },
        }
      : {}),
    unexplained: [...new Set(known.flatMap((model) => model.unexplained ?? []))],
  };
}

/**
 * The sum of closed forms, like terms added: the whole program's form when every part has an exact
 * one. Coefficients that are all fractions or integers add exactly (23/3 + 1/3 = 8), others as floats.
 */
export function sumOfTerms(parts: readonly (readonly Term[])[], params: readonly string[]): Term[] {
  const sums = new Map<string, { factors: Term['factors']; ratio: Fraction | undefined; float: number }>();
  for (const term of parts.flat()) {
    const factors = [...term.factors].sort((a, b) => params.indexOf(a.param) - params.indexOf(b.param));
    const key = factors.map((f) => `${f.param}^${f.exponent}l${f.log}`).join('*');
    const ratio = rationalOf(term);
    const sum = sums.get(key);
    if (!sum) sums.set(key, { factors, ratio, float: term.coefficient });
    else {
      sum.float += term.coefficient;
      sum.ratio = sum.ratio && ratio ? addFractions(sum.ratio, ratio) : undefined;
    }
  }
  const terms: Term[] = [];
  for (const { factors, ratio, float } of sums.values()) {
    const coefficient = ratio ? fractionValue(ratio) : float;
    if (coefficient === 0 && factors.length > 0) continue;
    terms.push({ coefficient, factors, ...(ratio && ratio.den !== 1n ? { fraction: formatFraction(ratio) } : {}) });
  }
  // The constant first, then the highest powers, as exact forms write them.
  const power = (term: Term) => term.factors.reduce((sum, f) => sum + f.exponent, 0);
  const logs = (term: Term) => term.factors.reduce((sum, f) => sum + f.log, 0);
  return terms.sort(
    (a, b) => Number(a.factors.length > 0) - Number(b.factors.length > 0) || power(b) - power(a) || logs(b) - logs(a),
  );
}

/** A term's coefficient as a fraction when it is an integer or a fraction written out. */
function rationalOf(term: Term): Fraction | undefined {
  if (term.fraction) {
    const [num, den] = term.fraction.split('/');
    return { num: BigInt(num!), den: BigInt(den ?? '1') };
  }
  return Number.isSafeInteger(term.coefficient) ? { num: BigInt(term.coefficient), den: 1n } : undefined;
}
