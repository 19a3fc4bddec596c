// Blame through values passed by value (issue 25: most of nextpnr's "callee argument" share):
// native/src/blame_kernels.c's histogram_chain computes each bin in a by-value chain (bin_of ->
// mix, each returning its result) and passes it to a void deposit that only indexes the histogram
// with it. The chain's work flows back through the returns into the call of deposit; deposit
// stores nothing from that parameter, so before the rule for parameters that only address memory
// or steer control it all ended in "other" (callee argument, 93%); now it is charged to what
// deposit writes, the caller's histogram.
import { expect, test } from 'vitest';
import { join } from 'node:path';
import { blameModule } from '../../src/blame/blame.js';

const C = join(import.meta.dirname, '..', '..', 'native/wasm/debug/blame_kernels.wasm');

test('work in a by-value callee chain whose result only indexes a void callee goes to what that callee writes', async () => {
  const report = await blameModule(C, { invoke: 'histogram_chain', args: ['2000', '20'] });
  const point = report.blamePoints[0]!;
  // The histogram's local, named by the line that allocates it (`Histogram *hist = malloc(...)`).
  const hist = point.variables.find((v) => v.name === 'hist');
  expect(hist?.percent).toBeGreaterThan(90);
  const other = point.variables.find((v) => v.name === 'other');
  expect(other?.percent ?? 0).toBeLessThan(5);
  expect(other?.parts?.map((part) => part.why) ?? []).not.toContain('callee argument');
  // The most samples one of the 2,000 bins got over 20 rounds (the program's own answer, unchanged).
  expect(report.result).toBe(37);
}, 60_000);
