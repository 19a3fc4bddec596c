// Findings on noisy metrics (time) only where the repetitions put them above the noise.
//
// Counts are deterministic; a time is not. A demo's headline "scalability bug" came from the timing
// noise of a sub-millisecond function, and flite got seven such. Two rules: a time too short to time
// (a call path's median under MIN_CALLPATH_TIME_MS) gets no model, only its median (flag
// `too-short`); and a growth finding on a noisy metric stands only when the model's growth explains
// more than MIN_GROWTH_ABOVE_NOISE noise variances of the data beyond a constant, a figure the
// output gives (`aboveNoise`).

/** A call path's time (ms) under this is timer resolution and tier-up, not a function of the parameters. */
export const MIN_CALLPATH_TIME_MS = 1;
/** Noise variances a growth must explain beyond a constant to be reported (as for contention). */
export const MIN_GROWTH_ABOVE_NOISE = 25;

/**
 * How many noise variances of the aggregated values the model explains beyond their mean: the drop
 * in the relative residual sum of squares from a constant to the model, over the relative noise
 * variance of one aggregated value. NaN without repetitions (no noise to compare with).
 */
export function growthAboveNoise(y: ArrayLike<number>, predicted: ArrayLike<number>, noiseVar: number): number {
  if (!(noiseVar > 0) || y.length === 0) return NaN;
  let mean = 0;
  for (let i = 0; i < y.length; i++) mean += y[i]!;
  mean /= y.length;
  let constant = 0;
  let model = 0;
  for (let i = 0; i < y.length; i++) {
    const scale = Math.abs(y[i]!) || 1;
    constant += ((y[i]! - mean) / scale) ** 2;
    model += ((y[i]! - predicted[i]!) / scale) ** 2;
  }
  return Math.max(0, constant - model) / noiseVar;
}

/** Scalability flags of a noisy series that its repetitions do not carry are dropped. */
export function keepAboveNoise(flags: readonly string[], aboveNoise: number): string[] {
  if (aboveNoise >= MIN_GROWTH_ABOVE_NOISE) return [...flags];
  return flags.filter((flag) => !flag.startsWith('scalability-bug:'));
}
