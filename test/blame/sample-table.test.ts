// The sampled-versus-exact line says what chance alone allows, and a run without samples compares nothing.
import { expect, test } from 'vitest';
import { sampleTable } from '../../src/blame/report.js';
import type { SampledProfile } from '../../src/blame/sampled-profile.js';

const profile = (
  totalSamples: number,
  maxErrorPoints: number | null,
  expectedErrorPoints: number | null,
): SampledProfile => ({
  schema: 'taintlens/sample@1',
  module: 'k.wasm',
  invoke: 'run',
  result: 0,
  period: 4999,
  totalSamples,
  droppedSamples: 0,
  totalInstructions: 47,
  maxErrorPoints,
  expectedErrorPoints,
  callpaths: [{ callpath: 'run', samples: totalSamples, sampledPercent: totalSamples ? 100 : 0, exactPercent: 100 }],
  timing: { ms: 1 },
});

test('a difference is shown beside the sampling error of that many samples', () => {
  expect(sampleTable(profile(3663, 0.07, 1.58), 100, undefined)).toContain(
    'largest difference sampled vs exact: 0.07 percentage points (chance alone: up to ±1.58 at 95% with 3,663 samples)',
  );
});

test('without samples no difference is claimed', () => {
  const text = sampleTable(profile(0, null, null), 100, undefined);
  expect(text).not.toContain('largest difference');
  expect(text).toContain(
    'no samples (47 instructions executed, one sample per ~4999): a smaller --period samples the run',
  );
});
