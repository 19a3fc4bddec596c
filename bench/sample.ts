// `npm run bench` (sampling row, issue #14): time under the sampling pass at its default period ÷
// uninstrumented time per kernel, measured in the same run, and the geometric mean. Target ≤ 1.5×.
import { DEFAULT_PERIOD, type SampleLayout } from '../instrument/passes/sample.js';
import { sampleDrainPlugin } from '../src/blame/sample-drain.js';
import { benchModeOverhead } from './mode-overhead.js';

await benchModeOverhead({
  mode: 'sample',
  label: 'sampled',
  title: `sampling overhead at the default period (${DEFAULT_PERIOD} instructions`,
  target: 1.5,
  plugins: (sites) => [sampleDrainPlugin(sites.passes.sample as SampleLayout)],
});
