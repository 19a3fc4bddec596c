// `<root>` is the whole program, consistent with its parts.
//
// `taintlens measure` writes the whole run's wall time as `<root>`'s `time`, and instruction counts
// per call path, exclusive of callees. Instructions get a `<root>` too: at every point, the sum over
// every call path (a call path not reached at a point adds nothing), so the whole program's count is
// exactly the sum of its parts and its model the sum of theirs. Entry counts (visits) have no
// whole-program sum, and a time per call path may be inclusive in other tools' files. After modelling, a whole run whose own model predicts less than its parts
// together at the target takes their sum (flag `parts-sum`): the run contains every part.
import { ROOT_CALLPATH } from './design.js';
import type { Experiment, Point, Series } from './types.js';

/** Metrics that count entries into a function, not a cost: folding drops them. */
export const ENTRY_COUNTS: ReadonlySet<string> = new Set(['visits']);
/** Exclusive counts whose whole-program value is the sum over the call paths. */
const SUMMED_METRICS: ReadonlySet<string> = new Set(['instructions']);

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

/** The experiment with a `<root>` instructions series where it has none: the sum of its call paths. */
export function withWholeProgram(experiment: Experiment): Experiment {
  const added: Series[] = [];
  const metrics = [...new Set(experiment.series.map((series) => series.metric))];
  for (const metric of metrics) {
    if (!SUMMED_METRICS.has(metric)) continue;
    const parts = experiment.series.filter((series) => series.metric === metric);
    if (parts.length < 2 || parts.some((series) => series.callpath === ROOT_CALLPATH)) continue;
    const byPoint = new Map<string, Point>();
    for (const series of parts) {
      for (const point of series.points) {
        const key = point.coords.join(',');
        const total = byPoint.get(key);
        if (!total) byPoint.set(key, { coords: [...point.coords], values: [...point.values] });
        else addRepetitions(total, point);
      }
    }
    added.push({ callpath: ROOT_CALLPATH, metric, params: [...parts[0]!.params], points: [...byPoint.values()] });
  }
  return added.length === 0 ? experiment : { ...experiment, series: [...experiment.series, ...added] };
}

/** A prediction of the whole run and its parts: the whole is at least the sum of its parts. */
export function wholeAtLeastParts(root: number, parts: readonly number[]): { prediction: number; raised: boolean } {
  const sum = parts.reduce((total, part) => total + Math.max(0, part), 0);
  return sum > root ? { prediction: sum, raised: true } : { prediction: root, raised: false };
}
