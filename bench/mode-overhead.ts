// One instrumentation mode's time ÷ uninstrumented time per kernel of the bench suite, measured in
// one run (plain and instrumented runs alternate, so a noisy neighbour slows both alike), and the
// geometric mean against the mode's target. A result that differs from the original fails the run.
import { instrumentModule, type InstrumentedSites } from '../instrument/pipeline.js';
import type { HostPluginSpec } from '../src/runtime/protocol.js';
import { renderTable } from '../src/report/table.js';
import { benchSuite } from './suite.js';
import { compareTimings, geomean, loadKernels, repeatFromArgs, timeModule, TIMING_METHOD } from './harness.js';

export interface ModeOverheadBench {
  mode: string;
  /** Column prefix for the instrumented time: `loops` → `loops ms`, `loops/plain`. */
  label: string;
  /** The table's title; gets `best of 3 rounds of median-of-N` appended. */
  title: string;
  target: number;
  /** Host plugins the mode's runs attach, as its command attaches them (sampling: the buffer's drain). */
  plugins?: (sites: InstrumentedSites) => HostPluginSpec[];
}

export async function benchModeOverhead(bench: ModeOverheadBench): Promise<void> {
  const repeat = repeatFromArgs(7);
  const rows: Array<{ kernel: string; plainMs: number; modeMs: number; same: boolean }> = [];
  for (const kernel of loadKernels(benchSuite)) {
    const instrumented = instrumentModule(kernel.bytes, kernel.file, [bench.mode]);
    const plugins = bench.plugins?.(instrumented.sites) ?? [];
    const timing = await compareTimings(
      3,
      () => timeModule(kernel, kernel.bytes, repeat),
      () => timeModule(kernel, instrumented.bytes, repeat, plugins),
    );
    rows.push({ kernel: kernel.name, plainMs: timing.baselineMs, modeMs: timing.candidateMs, same: timing.same });
  }
  console.log(`${bench.title}; best of 3 rounds of median-of-${repeat}; ${TIMING_METHOD})`);
  console.log(
    renderTable(rows, [
      { header: 'kernel', value: (r) => r.kernel },
      { header: 'plain ms', value: (r) => Number(r.plainMs.toFixed(2)) },
      { header: `${bench.label} ms`, value: (r) => Number(r.modeMs.toFixed(2)) },
      { header: `${bench.label}/plain`, value: (r) => Number((r.modeMs / r.plainMs).toFixed(3)) },
      { header: 'same result', value: (r) => (r.same ? 'yes' : 'NO') },
    ]),
  );
  console.log(
    `geomean ${bench.label}/plain: ${geomean(rows.map((r) => r.modeMs / r.plainMs)).toFixed(3)} (target <= ${bench.target})`,
  );
  if (rows.some((r) => !r.same)) process.exitCode = 1;
}
