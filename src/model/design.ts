// What the measurement design allows a model to say: parameters never varied, too few values per
// parameter, predictions beyond what was measured, time too short to model, a taint report that
// belongs to something else. Problems of the whole experiment are said once, as warnings; what
// concerns one call path is one of its flags.
import { UserError } from '../util/errors.js';
import type { Experiment, Series } from './types.js';

/** Extra-P's minimum: five values per parameter to tell exponents apart. */
export const MIN_VALUES_PER_PARAMETER = 5;

/**
 * Median run times below this (ms) are dominated by fixed costs: the call, timer resolution and
 * the engine's tier-up from baseline to optimized code, which a run of a few ms only partly sees.
 */
export const MIN_MODEL_TIME_MS = 10;

/** The call path of the whole run, as `taintlens measure` and the readers name it. */
export const ROOT_CALLPATH = '<root>';

/** The metric `taintlens measure` writes: wall time of the run in milliseconds. */
export const TIME_METRIC = 'time';

export interface DesignWarning {
  /** `not-varied`, `few-points`, `extrapolation`, `short-runs`, `taint-mismatch`. */
  kind: string;
  message: string;
  param?: string;
  metric?: string;
}

/** The distinct measured values of each parameter over the given series. */
export function valuesPerParameter(experiment: Experiment, series: readonly Series[]): Map<string, number[]> {
  const values = new Map<string, Set<number>>(experiment.params.map((p) => [p, new Set<number>()]));
  for (const s of series) {
    for (const point of s.points) {
      if (point.values.length === 0) continue;
      s.params.forEach((p, l) => values.get(p)?.add(point.coords[l]!));
    }
  }
  return new Map([...values].map(([p, set]) => [p, [...set].sort((a, b) => a - b)]));
}

/** The flags of one series' own design: `not-varied:p` (one value), `few-points:p` (2 to 4). */
export function designFlags(distinct: readonly number[], params: readonly string[]): string[] {
  const flags: string[] = [];
  params.forEach((p, l) => {
    const count = distinct[l]!;
    if (count <= 1) flags.push(`not-varied:${p}`);
    else if (count < MIN_VALUES_PER_PARAMETER) flags.push(`few-points:${p}`);
  });
  return flags;
}

/**
 * A target along a parameter measured at one value only is refused: no model can say how cost
 * changes with it, whatever the taint report says.
 */
export function checkTarget(values: ReadonlyMap<string, number[]>, target: Readonly<Record<string, number>>): void {
  for (const [p, measured] of values) {
    const at = target[p];
    if (at === undefined || measured.length !== 1 || at === measured[0]) continue;
    throw new UserError(
      `--target ${p}=${at}: ${p} was measured at one value only (${measured[0]}), so no model can extrapolate along it; ` +
        `measure more values of ${p} or give ${p}=${measured[0]}`,
      2,
    );
  }
}

/** One warning per parameter with too few values, and per parameter the target lies beyond. */
export function designWarnings(
  values: ReadonlyMap<string, number[]>,
  target: Readonly<Record<string, number>>,
): DesignWarning[] {
  const warnings: DesignWarning[] = [];
  for (const [p, measured] of values) {
    if (measured.length === 0) continue;
    const list = measured.length <= 6 ? measured.join(', ') : `${measured[0]} … ${measured[measured.length - 1]}`;
    if (measured.length === 1) {
      warnings.push({
        kind: 'not-varied',
        param: p,
        message: `${p} was measured at one value only (${list}): no model depends on it`,
      });
    } else if (measured.length < MIN_VALUES_PER_PARAMETER) {
      const modeled = measured.length < 3 ? `${p} is not modeled` : `exponents of ${p} are poorly determined`;
      warnings.push({
        kind: 'few-points',
        param: p,
        message: `${p} has ${measured.length} values (${list}); Extra-P needs at least ${MIN_VALUES_PER_PARAMETER} per parameter: ${modeled}`,
      });
    }
    const at = target[p];
    if (
      at !== undefined &&
      measured.length > 1 &&
      measured.length < MIN_VALUES_PER_PARAMETER &&
      (at > measured[measured.length - 1]! || at < measured[0]!)
    ) {
      warnings.push({
        kind: 'extrapolation',
        param: p,
        message: `predictions at ${p}=${at} extrapolate along ${p} from ${measured.length} values only: treat them as rough`,
      });
    }
  }
  return warnings;
}

/** The median over the points of a series' aggregated values (for `time`: ms). */
export function typicalTime(aggregated: ArrayLike<number>): number {
  const sorted = Array.from(aggregated).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The typical time of the whole run (`<root>`, metric `time`) in an experiment: the median over
 * the points of each point's median repetition. Undefined when there is no such series.
 */
export function wholeRunTime(experiment: Experiment): number | undefined {
  const series = experiment.series.find((s) => s.metric === TIME_METRIC && s.callpath === ROOT_CALLPATH);
  if (!series) return undefined;
  const medians = series.points.filter((point) => point.values.length > 0).map((point) => typicalTime(point.values));
  return medians.length > 0 ? typicalTime(medians) : undefined;
}

/** Whole runs (`<root>`) whose typical time is under MIN_MODEL_TIME_MS. */
export function shortRunsWarning(metric: string, typicalMs: number): DesignWarning {
  return {
    kind: 'short-runs',
    metric,
    message:
      `${metric} of ${ROOT_CALLPATH} (the whole run): the median run takes ${typicalMs.toPrecision(2)} ms, under ${MIN_MODEL_TIME_MS} ms; ` +
      'fixed costs (the call, timer resolution, tier-up to optimized code) dominate runs this short and models of time ' +
      'extrapolate badly: measure larger inputs, or model instructions',
  };
}

export function taintMismatchWarning(
  taintSource: string,
  match: { matched: number; callpaths: number; share: number },
  sharedParams: readonly string[],
): DesignWarning {
  const why =
    sharedParams.length === 0
      ? 'shares no parameter with the measurements'
      : match.matched === 0
        ? `matches none of the ${match.callpaths} call paths' functions`
        : `matches only ${match.matched} of the ${match.callpaths} call paths' functions, which carry ${(100 * match.share).toFixed(1)}% of the work`;
  const effect =
    match.matched === 0 || sharedParams.length === 0
      ? 'The models are not restricted by it'
      : 'Only those models are restricted by it';
  return {
    kind: 'taint-mismatch',
    message: `the taint report ${taintSource} ${why}: is it from another module? ${effect}`,
  };
}
