// The shape of the measurement noise, read off the repetitions alone (no model needed): how heavy
// are the tails of the deviations of repetitions from their point's mean?
//
// The excess kurtosis γ₂ separates the cases that call for different fits: bounded noise
// (γ₂ < 0; uniform jitter −1.2) is fitted best by its boundaries, normal noise (0) by least squares,
// heavy tails (> 0; outliers, interference) by robust aggregates. Deviations from a mean of r
// repetitions have γ₂ shrunk by ((1 − 1/r)⁴ + (r − 1)/r⁴) / (1 − 1/r)², which is undone here.
// Each call path is standardized by its own spread first, so call paths with different noise
// levels pool without faking heavy tails; pooling every call path of an experiment is what makes
// the estimate sharp (one 5×5×5 call path alone cannot tell uniform from normal noise).
import type { Series } from './types.js';

export type NoiseShape = 'bounded' | 'normal' | 'heavy';

export interface NoiseEstimate {
  shape: NoiseShape;
  /** Estimated excess kurtosis of one repetition's relative deviation (NaN without repetitions). */
  excessKurtosis: number;
  /** Its standard error were the noise normal. */
  standardError: number;
  /** Deviations pooled (repetitions at points with at least 3). */
  samples: number;
}

/** γ₂ this far below zero, and significantly (3 standard errors), counts as bounded noise. */
const BOUNDED_BELOW = -0.6;
const HEAVY_ABOVE = 1;
const SIGNIFICANCE = 3;

/** Pools the relative deviations of every series' repetitions and classifies their tails. */
export function estimateNoise(series: readonly Series[]): NoiseEstimate {
  let fourth = 0;
  let samples = 0;
  let shrink = 0;
  let dof = 0;
  const deviations: number[] = [];
  for (const s of series) {
    deviations.length = 0;
    let squares = 0;
    let seriesShrink = 0;
    let seriesDof = 0;
    for (const point of s.points) {
      const r = point.values.length;
      if (r < 3) continue;
      let mean = 0;
      for (const v of point.values) mean += v;
      mean /= r;
      if (!(Math.abs(mean) > 0) || !Number.isFinite(mean)) continue;
      for (const v of point.values) {
        const d = (v - mean) / mean;
        deviations.push(d);
        squares += d * d;
      }
      const keep = 1 - 1 / r;
      seriesShrink += (r * (keep ** 4 + (r - 1) / r ** 4)) / keep ** 2;
      seriesDof += r - 1;
    }
    // Deterministic metrics (instruction counts) have no noise to describe.
    if (deviations.length === 0 || !(squares > 0) || !Number.isFinite(squares)) continue;
    const variance = squares / deviations.length;
    for (const d of deviations) fourth += (d * d * d * d) / (variance * variance);
    samples += deviations.length;
    shrink += seriesShrink;
    dof += seriesDof;
  }
  if (samples === 0 || dof === 0) return { shape: 'normal', excessKurtosis: NaN, standardError: NaN, samples: 0 };
  const factor = shrink / samples;
  const excessKurtosis = (fourth / samples - 3) / factor;
  const standardError = Math.sqrt(24 / dof) / factor;
  let shape: NoiseShape = 'normal';
  if (excessKurtosis < BOUNDED_BELOW && excessKurtosis + SIGNIFICANCE * standardError < 0) shape = 'bounded';
  else if (excessKurtosis > HEAVY_ABOVE && excessKurtosis - SIGNIFICANCE * standardError > 0) shape = 'heavy';
  return { shape, excessKurtosis, standardError, samples };
}
