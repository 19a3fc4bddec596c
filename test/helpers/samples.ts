import type { Sample, SampledRun } from '../../src/blame/sample-run.js';

/** Everything a decoded sample holds, as one comparable string. */
export function sampleKey(s: Sample): string {
  const path = s.path.map((f) => `${f.function}:${f.call}:${f.node}`).join('/');
  return [s.region, path, s.allocations, s.stackPointer, s.addresses.join(','), s.leaf].join('|');
}

/** A run's samples in order, each as its sampleKey. */
export const samplesOf = (run: SampledRun): string[] => run.samples.map(sampleKey);
