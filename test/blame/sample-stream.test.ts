// `sample` and `blame` read a run's samples one at a time (SampledRun.forEachSample) instead of
// keeping them all: millions of samples (LULESH's default run: 7.4 M) took gigabytes as objects.
// The stream is the same samples in the same order, counted the same, and stops when asked.
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { runSampled } from '../../src/blame/sample-run.js';
import { sampleKey as key } from '../helpers/samples.js';
import { summarizeSampled } from '../../src/blame/sampled-profile.js';

test('forEachSample visits the decoded samples in order, sampleCount counts them, and a false return stops it', async () => {
  const run = () =>
    runSampled(
      'native/wasm/elements_O0.wasm',
      readFileSync('native/wasm/elements_O0.wasm'),
      { invoke: 'run', args: ['3', '2'], argv: [], repeat: 1, timeoutMs: 20_000 },
      { period: 97 },
    );
  const streamed = await run();
  const visited: string[] = [];
  streamed.forEachSample((s) => void visited.push(key(s)));
  expect(streamed.sampleCount).toBe(visited.length);
  const summary = summarizeSampled(streamed);
  expect(summary.total).toBe(visited.length);

  let seen = 0;
  streamed.forEachSample(() => ++seen < 3);
  expect(seen).toBe(3);

  const kept = (await run()).samples;
  expect(visited.length).toBeGreaterThan(100);
  expect(visited).toEqual(kept.map(key));
  expect([...summary.counts.values()].reduce((a, b) => a + b, 0)).toBe(kept.length);
});
