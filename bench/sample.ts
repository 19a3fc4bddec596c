// `npm run bench` (sampling row, issue #14): time under the sampling pass at its default period ÷
// uninstrumented time per kernel, measured in the same run, and the geometric mean. Target ≤ 1.5×.
import { instrumentModule } from '../instrument/pipeline.js';
import { DEFAULT_PERIOD } from '../instrument/passes/sample.js';
import { renderTable } from '../src/report/table.js';
import { benchSuite } from './suite.js';
import { compareTimings, geomean, loadKernels, repeatFromArgs, timeModule } from './harness.js';

const repeat = repeatFromArgs(7);
const rows: Array<{ kernel: string; plainMs: number; sampledMs: number; same: boolean }> = [];
for (const kernel of loadKernels(benchSuite)) {
  const instrumented = instrumentModule(kernel.bytes, kernel.file, ['sample']).bytes;
  const timing = await compareTimings(3, () => timeModule(kernel, kernel.bytes, repeat), () => timeModule(kernel, instrumented, repeat));
  rows.push({ kernel: kernel.name, plainMs: timing.baselineMs, sampledMs: timing.candidateMs, same: timing.same });
}
console.log(`sampling overhead at the default period (${DEFAULT_PERIOD} instructions; best of 3 rounds of median-of-${repeat})`);
console.log(renderTable(rows, [
  { header: 'kernel', value: (r) => r.kernel },
  { header: 'plain ms', value: (r) => Number(r.plainMs.toFixed(2)) },
  { header: 'sampled ms', value: (r) => Number(r.sampledMs.toFixed(2)) },
  { header: 'sampled/plain', value: (r) => Number((r.sampledMs / r.plainMs).toFixed(3)) },
  { header: 'same result', value: (r) => (r.same ? 'yes' : 'NO') },
]));
const mean = geomean(rows.map((r) => r.sampledMs / r.plainMs));
console.log(`geomean sampled/plain: ${mean.toFixed(3)} (target <= 1.5)`);
if (rows.some((r) => !r.same)) process.exitCode = 1;
