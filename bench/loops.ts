// `npm run bench`: loop-profiled time ÷ uninstrumented time per kernel, and the geometric mean.
// Plain and instrumented runs alternate, so a noisy neighbour slows both alike.
import { instrumentModule } from '../instrument/pipeline.js';
import { renderTable } from '../src/report/table.js';
import { benchSuite } from './suite.js';
import { geomean, loadKernels, repeatFromArgs, timeModule } from './harness.js';

const repeat = repeatFromArgs(7);
const rows: Array<{ kernel: string; plainMs: number; checkedMs: number; uncheckedMs: number; same: boolean }> = [];
for (const kernel of loadKernels(benchSuite)) {
  const checked = instrumentModule(kernel.bytes, kernel.file, ['loops']).bytes;
  const unchecked = instrumentModule(kernel.bytes, kernel.file, ['loops'], { boundsChecks: false }).bytes;
  const samples = { plain: [] as number[], checked: [] as number[], unchecked: [] as number[] };
  let same = true;
  let reference: unknown;
  for (let round = 0; round < 3; round++) {
    const plain = await timeModule(kernel, kernel.bytes, repeat);
    const withChecks = await timeModule(kernel, checked, repeat);
    const withoutChecks = await timeModule(kernel, unchecked, repeat);
    reference ??= plain.result;
    same &&= JSON.stringify(withChecks.result) === JSON.stringify(reference) && JSON.stringify(withoutChecks.result) === JSON.stringify(reference);
    samples.plain.push(plain.medianMs);
    samples.checked.push(withChecks.medianMs);
    samples.unchecked.push(withoutChecks.medianMs);
  }
  const best = (values: number[]) => Math.min(...values);
  rows.push({ kernel: kernel.name, plainMs: best(samples.plain), checkedMs: best(samples.checked), uncheckedMs: best(samples.unchecked), same });
}
console.log('loop profiling overhead (time of the invoked export; best of 3 rounds of median-of-' + repeat + ')');
console.log(renderTable(rows, [
  { header: 'kernel', value: (r) => r.kernel },
  { header: 'plain ms', value: (r) => Number(r.plainMs.toFixed(2)) },
  { header: 'loops ms', value: (r) => Number(r.checkedMs.toFixed(2)) },
  { header: 'ratio', value: (r) => Number((r.checkedMs / r.plainMs).toFixed(3)) },
  { header: 'unchecked ms', value: (r) => Number(r.uncheckedMs.toFixed(2)) },
  { header: 'ratio', value: (r) => Number((r.uncheckedMs / r.plainMs).toFixed(3)) },
  { header: 'same result', value: (r) => (r.same ? 'yes' : 'NO') },
]));
console.log(`geomean loops/plain: ${geomean(rows.map((r) => r.checkedMs / r.plainMs)).toFixed(3)} (bounds-checked, the default)`);
console.log(`geomean loops/plain: ${geomean(rows.map((r) => r.uncheckedMs / r.plainMs)).toFixed(3)} (--unchecked-memory)`);
if (rows.some((r) => !r.same)) process.exitCode = 1;
