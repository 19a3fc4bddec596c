// Summary statistics every layer shares: the median of repeated timings, and the spread of one
// quantity over a population (e.g. the ranks of an SPMD run). The model's noise estimate over
// repetitions (src/model/aggregate.ts) is a different measure and stays with the model.

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Mean, population coefficient of variation, min, max and max over mean of a set of values. */
export interface PopulationSpread {
  mean: number;
  cv: number;
  min: number;
  max: number;
  /** max / mean: how much longer the slowest rank takes than an even share (1 when balanced). */
  imbalance: number;
}

export function populationSpread(values: readonly number[]): PopulationSpread {
  const n = values.length;
  const mean = n > 0 ? values.reduce((a, b) => a + b, 0) / n : 0;
  const variance = n > 1 ? values.reduce((a, b) => a + (b - mean) ** 2, 0) / n : 0;
  const min = n > 0 ? Math.min(...values) : 0;
  const max = n > 0 ? Math.max(...values) : 0;
  return { mean, cv: mean !== 0 ? Math.sqrt(variance) / mean : 0, min, max, imbalance: mean !== 0 ? max / mean : 1 };
}
