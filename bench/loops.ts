// `npm run bench` (first part): loop-profiled time ÷ uninstrumented time per kernel, and the
// geometric mean. Plain and instrumented runs alternate, so a noisy neighbour slows both alike.
import { instrumentModule } from '../instrument/pipeline.js';
import { renderTable } from '../src/report/table.js';
import { benchSuite } from './suite.js';
import { geomean, loadKernels, repeatFromArgs, timeModule } from './harness.js';

const repeat = repeatFromArgs(7);
const rows: Array<{ kernel: string; plainMs: number; loopsMs: number; same: boolean }> = [];
for (const kernel of loadKernels(benchSuite)) {
  const instrumented = instrumentModule(kernel.bytes, kernel.file, ['loops']).bytes;
  const plain: number[] = [];
  const loops: number[] = [];
  let same = true;
  for (let round = 0; round < 3; round++) {
    const a = await timeModule(kernel, kernel.bytes, repeat);
    const b = await timeModule(kernel, instrumented, repeat);
    same &&= JSON.stringify(a.result) === JSON.stringify(b.result);
    plain.push(a.medianMs);
    loops.push(b.medianMs);
  }
  rows.push({ kernel: kernel.name, plainMs: Math.min(...plain), loopsMs: Math.min(...loops), same });
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
