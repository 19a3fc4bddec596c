// Taint-analysis overhead: taint-instrumented time ÷ uninstrumented time per kernel (median of
// `repeat` runs, best of ROUNDS alternating rounds), and the geometric mean over the kernel suite,
// for the default word-granular shadow memory and (with --byte) the exact byte-granular one; with
// --unversioned also the word shadow without alignment versioning of loops (shadow-versioning.ts);
// with --branches also every branch's control flow with data pointer labels (`--implicit-flow on
// --pointer-labels data`, the defaults before LULESH set them).
// --only a,b limits the run to the named kernels.
// Target: ≤ 3× (DFSan-class); a JS-hook design (Wasabi) costs ~100×.
import { instrumentModule } from '../instrument/pipeline.js';
import type { TaintLayout } from '../instrument/passes/taint.js';
import type { ShadowGranularity } from '../instrument/passes/shadow-placement.js';
import type { ImplicitFlow, PointerLabels } from '../instrument/passes/taint-semantics.js';
import { renderTable } from '../src/report/table.js';
import { benchSuite } from './suite.js';
import {
  compareTimings,
  geomean,
  loadKernels,
  repeatFromArgs,
  timeModule,
  timeTaint,
  TIMING_METHOD,
} from './harness.js';

const repeat = repeatFromArgs(7);
const ROUNDS = 5;
interface Variant {
  name: string;
  granularity: ShadowGranularity;
  noVersioning: boolean;
  semantics?: { implicitFlow: ImplicitFlow; pointerLabels: PointerLabels };
}
const variants: Variant[] = [{ name: 'word', granularity: 'word', noVersioning: false }];
if (process.argv.includes('--branches'))
  variants.push({
    name: 'word, every branch',
    granularity: 'word',
    noVersioning: false,
    semantics: { implicitFlow: 'on', pointerLabels: 'data' },
  });
if (process.argv.includes('--unversioned'))
  variants.push({ name: 'word, unversioned', granularity: 'word', noVersioning: true });
if (process.argv.includes('--byte')) variants.push({ name: 'byte', granularity: 'byte', noVersioning: false });

interface Row {
  kernel: string;
  plainMs: number;
  ratios: Record<string, number>;
  same: boolean;
}
const rows: Row[] = [];
for (const kernel of loadKernels(benchSuite)) {
  const row: Row = { kernel: kernel.name, plainMs: Infinity, ratios: {}, same: true };
  for (const { name, granularity, noVersioning, semantics } of variants) {
    const instrumented = instrumentModule(kernel.bytes, kernel.file, ['taint'], {
      programLimitPages: 4096,
      taint: { granularity, noVersioning, ...semantics },
    });
    const layout = instrumented.sites.passes.taint as TaintLayout;
    const programBase = instrumented.sites.layout?.programBase ?? 0;
    const timing = await compareTimings(
      ROUNDS,
      () => timeModule(kernel, kernel.bytes, repeat),
      () => timeTaint(kernel, instrumented.bytes, layout, programBase, repeat),
    );
    row.plainMs = Math.min(row.plainMs, timing.baselineMs);
    row.ratios[name] = timing.candidateMs / timing.baselineMs;
    row.same &&= timing.same;
  }
  rows.push(row);
}
console.log(
  `taint analysis overhead (wall time of the invoked export; best of ${ROUNDS} alternating rounds of median-of-${repeat}; ${TIMING_METHOD})`,
);
console.log(
  renderTable(rows, [
    { header: 'kernel', value: (r) => r.kernel },
    { header: 'plain ms', value: (r) => Number(r.plainMs.toFixed(2)) },
    ...variants.map(({ name }) => ({
      header: `taint/plain (${name})`,
      value: (r: Row) => Number(r.ratios[name]!.toFixed(3)),
    })),
    { header: 'same result', value: (r) => (r.same ? 'yes' : 'NO') },
  ]),
);
for (const { name } of variants)
  console.log(`geomean taint/plain (${name} shadow): ${geomean(rows.map((r) => r.ratios[name]!)).toFixed(3)}`);
if (rows.some((r) => !r.same)) process.exitCode = 1;
