// Summary statistics of one quantity over the ranks of an SPMD run (imbalance): mean, coefficient
// of variation, min, max, and max over mean (1 when balanced).

export interface Spread {
  mean: number;
  cv: number;
  min: number;
  max: number;
  /** max / mean: how much longer the slowest rank takes than an even share (1 when balanced). */
  imbalance: number;
}

export function spreadOf(values: number[]): Spread {
  const n = values.length;
  const mean = n > 0 ? values.reduce((a, b) => a + b, 0) / n : 0;
  const variance = n > 1 ? values.reduce((a, b) => a + (b - mean) ** 2, 0) / n : 0;
  const min = n > 0 ? Math.min(...values) : 0;
  const max = n > 0 ? Math.max(...values) : 0;
  return { mean, cv: mean !== 0 ? Math.sqrt(variance) / mean : 0, min, max, imbalance: mean !== 0 ? max / mean : 1 };
}
