// `npm run bench` (first part): loop-profiled time ÷ uninstrumented time per kernel, and the
// geometric mean.
import { benchModeOverhead } from './mode-overhead.js';

await benchModeOverhead({
  mode: 'loops',
  label: 'loops',
  title: 'loop profiling overhead (time of the invoked export',
  target: 1.2,
});
