// `npm run bench` (first part): loop-profiled time ÷ uninstrumented time per kernel, and the
// geometric mean. Plain and instrumented runs alternate, so a noisy neighbour slows both alike.
import { instrumentModule } from '../instrument/pipeline.js';
import { renderTable } from '../src/report/table.js';
import { benchSuite } from './suite.js';
import { compareTimings, geomean, loadKernels, repeatFromArgs, timeModule } from './harness.js';

const repeat = repeatFromArgs(7);
const rows: Array<{ kernel: string; plainMs: number; loopsMs: number; same: boolean }> = [];
for (const kernel of loadKernels(benchSuite)) {
  const instrumented = instrumentModule(kernel.bytes, kernel.file, ['loops']).bytes;
  const timing = await compareTimings(3, () => timeModule(kernel, kernel.bytes, repeat), () => timeModule(kernel, instrumented, repeat));
  rows.push({ kernel: kernel.name, plainMs: timing.baselineMs, loopsMs: timing.candidateMs, same: timing.same });
}
console.log(`loop profiling overhead (time of the invoked export; best of 3 rounds of median-of-${repeat})`);
console.log(renderTable(rows, [
  { header: 'kernel', value: (r) => r.kernel },
  { header: 'plain ms', value: (r) => Number(r.plainMs.toFixed(2)) },
  { header: 'loops ms', value: (r) => Number(r.loopsMs.toFixed(2)) },
  { header: 'loops/plain', value: (r) => Number((r.loopsMs / r.plainMs).toFixed(3)) },
  { header: 'same result', value: (r) => (r.same ? 'yes' : 'NO') },
]));
console.log(`geomean loops/plain: ${geomean(rows.map((r) => r.loopsMs / r.plainMs)).toFixed(3)} (target <= 1.2)`);
if (rows.some((r) => !r.same)) process.exitCode = 1;
