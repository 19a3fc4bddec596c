// Taint-analysis overhead: taint-instrumented time ÷ uninstrumented time per kernel (median of
// `repeat` runs, best of 3 alternating rounds), and the geometric mean over the kernel suite.
// Target: ≤ 3× (DFSan-class); a JS-hook design (Wasabi) costs ~100×.
import { instrumentModule } from '../instrument/pipeline.js';
import type { TaintLayout } from '../instrument/passes/taint.js';
import { runModule } from '../src/runtime/run.js';
import { median } from '../src/cli/run-options.js';
import { renderTable } from '../src/report/table.js';
import { taintPluginUrl } from '../src/taint/analyze.js';
import type { TaintPluginOptions } from '../src/taint/plugin.js';
import { benchSuite, type BenchKernel } from './suite.js';
import { compareTimings, geomean, loadKernels, repeatFromArgs, timeModule } from './harness.js';

const repeat = repeatFromArgs(5);

async function timeTaint(kernel: BenchKernel, bytes: Uint8Array, layout: TaintLayout, programBase: number): Promise<{ medianMs: number; result: unknown }> {
  const options: TaintPluginOptions = { shadowBase: layout.shadow.base, names: layout.names, args: [], globals: [], maxLabels: 32 };
  const outcome = await runModule({
    file: kernel.file, bytes, invoke: kernel.invoke, args: kernel.args, argv: kernel.argv ?? [], repeat, timeoutMs: 600_000,
    plugins: [{ url: taintPluginUrl, options }], programBase,
  });
  return { medianMs: median(outcome.repetitions.map((r) => r.ms)), result: outcome.repetitions[0]!.result };
}

const rows: Array<{ kernel: string; plainMs: number; taintMs: number; same: boolean }> = [];
for (const kernel of loadKernels(benchSuite)) {
  const instrumented = instrumentModule(kernel.bytes, kernel.file, ['taint'], { programLimitPages: 4096 });
  const layout = instrumented.sites.passes.taint as TaintLayout;
  const programBase = instrumented.sites.layout?.programBase ?? 0;
  const timing = await compareTimings(3, () => timeModule(kernel, kernel.bytes, repeat), () => timeTaint(kernel, instrumented.bytes, layout, programBase));
  rows.push({ kernel: kernel.name, plainMs: timing.baselineMs, taintMs: timing.candidateMs, same: timing.same });
}
console.log(`taint analysis overhead (time of the invoked export; best of 3 rounds of median-of-${repeat})`);
console.log(renderTable(rows, [
  { header: 'kernel', value: (r) => r.kernel },
  { header: 'plain ms', value: (r) => Number(r.plainMs.toFixed(2)) },
  { header: 'taint ms', value: (r) => Number(r.taintMs.toFixed(2)) },
  { header: 'taint/plain', value: (r) => Number((r.taintMs / r.plainMs).toFixed(3)) },
  { header: 'same result', value: (r) => (r.same ? 'yes' : 'NO') },
]));
console.log(`geomean taint/plain: ${geomean(rows.map((r) => r.taintMs / r.plainMs)).toFixed(3)}`);
if (rows.some((r) => !r.same)) process.exitCode = 1;
