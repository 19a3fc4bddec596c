// Repetitions → one value per point, plus what the spread says about the noise.
import type { Aggregate } from './types.js';

export const AGGREGATES: readonly Aggregate[] = ['median', 'mean', 'min', 'max'];

/** Coefficient of variation above which a data set is flagged unreliable. */
export const UNRELIABLE_CV = 0.1;

export function aggregate(values: readonly number[], how: Aggregate, scratch: number[] = []): number {
  const count = values.length;
  if (count === 0) return NaN;
  if (count === 1) return values[0]!;
  switch (how) {
    case 'mean': {
      let sum = 0;
      for (const v of values) sum += v;
      return sum / count;
    }
    case 'min': {
      let min = Infinity;
      for (const v of values) min = Math.min(min, v);
      return min;
    }
    case 'max': {
      let max = -Infinity;
      for (const v of values) max = Math.max(max, v);
      return max;
    }
    case 'median': {
      // Insertion sort: repetitions are few, and this runs once per point of every call path.
      scratch.length = 0;
      for (const v of values) {
        let at = scratch.length;
        scratch.push(v);
        while (at > 0 && scratch[at - 1]! > v) {
          scratch[at] = scratch[at - 1]!;
          at--;
        }
        scratch[at] = v;
      }
      const mid = count >> 1;
      return count % 2 === 1 ? scratch[mid]! : (scratch[mid - 1]! + scratch[mid]!) / 2;
    }
  }
}

export interface Spread {
  /** Mean over points of the repetitions' coefficient of variation (sample std / |mean|). */
  cv: number;
  /** The largest per-point coefficient of variation. */
  cvMax: number;
  /**
   * Estimated relative variance of the aggregated values: the pooled relative variance of one
   * repetition times the aggregate's variance factor (1/r for the mean, π/(2r) for the median of r
   * roughly normal values, ~1/2 for the minimum or maximum of a few). For the median, a point whose
   * standard deviation is dominated by outliers (more than three times 1.4826 · median absolute
   * deviation) uses the robust estimate instead, so an outlier the median ignores does not inflate
   * the noise either.
   * NaN without repetitions.
   */
  noiseVar: number;
  repetitions: number;
}

export function spreadOf(points: readonly { values: readonly number[] }[], how: Aggregate): Spread {
  let cvSum = 0;
  let cvMax = 0;
  let cvCount = 0;
  let relVarSum = 0;
  let reps = 0;
  for (const point of points) {
    const r = point.values.length;
    if (r < 2) continue;
    let mean = 0;
    for (const v of point.values) mean += v;
    mean /= r;
    let ss = 0;
    for (const v of point.values) ss += (v - mean) * (v - mean);
    const variance = ss / (r - 1);
    const scale = Math.abs(mean);
    const cv = scale > 0 ? Math.sqrt(variance) / scale : variance > 0 ? Infinity : 0;
    cvSum += cv;
    cvMax = Math.max(cvMax, cv);
    let relative = Number.isFinite(cv) ? cv * cv : 0;
    if (how === 'median' && r >= 3) {
      const center = aggregate(point.values, 'median');
      const mad = aggregate(
        point.values.map((v) => Math.abs(v - center)),
        'median',
      );
      const robust = Math.abs(center) > 0 ? (1.4826 * mad) / Math.abs(center) : 0;
      // Only where outliers dominate the standard deviation (the MAD is the noisier estimate).
      if (robust * robust < relative / 9) relative = robust * robust;
    }
    relVarSum += relative;
    cvCount++;
    reps += r;
  }
  if (cvCount === 0) return { cv: 0, cvMax: 0, noiseVar: NaN, repetitions: points.length ? 1 : 0 };
  const r = reps / cvCount;
  const factor = how === 'mean' ? 1 / r : how === 'median' ? (r <= 2 ? 1 / r : Math.PI / (2 * r)) : Math.min(1, 2 / r);
  return { cv: cvSum / cvCount, cvMax, noiseVar: (relVarSum / cvCount) * factor, repetitions: r };
}
