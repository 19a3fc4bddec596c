// `npm run bench` (issue 27): every mode's overhead on kernels shaped like other people's code —
// dense and triangular BLAS-like nests and a multi-step stencil (PolyBench-style C) and an element
// loop calling small methods per element (LULESH-style C++, native/src/elements.cpp), each built
// -O0 and -O2 (native/build.sh). Per kernel and build one table row holds the time ratios of loop
// profiling, sampling, taint-selective measurement and taint analysis, all measured in the same
// alternating rounds (every variant runs once per round, the order rotating from round to round;
// per variant the median over rounds of its median-of-`repeat` time), and the loop profiler's exact
// count of the original instructions per call, which says how call-heavy the kernel is, and the
// loop profiler's and the sampler's instructions executed per original instruction (bench/instruction-ratio.ts), for
// the whole run and the hottest loop, and the taint analysis's for the whole run (its innermost loops
// are versioned, so the original's loop ids do not name them): exact where the wall time of a
// loaded machine is not. Selective measurement gets its exact instruction ratio too (÷ the
// measurement pass without regions; its clock calls count one instruction each, their host time
// shows only in the wall time) and its per-round time ratios with their spread. A closing table
// holds every issue-27 geometric mean of the run beside its target. A variant whose result
// differs from the original fails the run.
// --only a,b keeps the named kernels; --rounds R, --repeat K.
import { instrumentModule } from '../instrument/pipeline.js';
import type { TaintLayout } from '../instrument/passes/taint.js';
import { DEFAULT_PERIOD } from '../instrument/passes/sample.js';
import { selectRegions } from '../src/experiment/select.js';
import { instrumentRegions, type RegionModule } from '../src/experiment/region-run.js';
import { profileLoops } from '../src/profile/profile-run.js';
import { renderTable } from '../src/report/table.js';
import { median } from '../src/util/stats.js';
import type { BenchKernel } from './suite.js';
import { geomean, loadKernels, repeatFromArgs, timeModule, timeTaint, type Timed } from './harness.js';
import { instructionRatio, instructionRatioOf, type InstructionRatio } from './instruction-ratio.js';

const O0_AND_O2: Array<{ name: string; source: string; args: string[] }> = [
  { name: 'gemm', source: 'gemm', args: ['200'] },
  { name: 'trmm', source: 'trmm', args: ['260', '260'] },
  { name: 'jacobi2d', source: 'jacobi2d', args: ['500', '10'] },
  { name: 'elements', source: 'elements', args: ['16', '8'] },
];
const externalSuite: BenchKernel[] = O0_AND_O2.flatMap(({ name, source, args }) => [
  { name: `${name} -O0`, file: `native/wasm/${source}_O0.wasm`, invoke: 'run', args },
  { name: `${name} -O2`, file: `native/wasm/${source}.wasm`, invoke: 'run', args },
]);

const MODES = ['loops', 'sample', 'selective', 'taint'] as const;
type Mode = (typeof MODES)[number];
const TARGETS: Record<Mode, number> = { loops: 1.15, sample: 1.1, selective: 1.05, taint: 2.5 };

const repeat = repeatFromArgs(3);
const rounds = (() => {
  const flag = process.argv.indexOf('--rounds');
  return flag >= 0 ? Number(process.argv[flag + 1]) : 5;
})();

interface Variant {
  name: 'plain' | 'none' | Mode;
  time: () => Promise<Timed>;
}

/** The variants of one kernel; `none` is the measurement pass with no region (selective's baseline, as in `taintlens overhead`). */
async function variantsOf(
  kernel: BenchKernel & { bytes: Uint8Array },
): Promise<{ variants: Variant[]; selected: number; selectiveBytes: Uint8Array; noneBytes: Uint8Array }> {
  const time = (bytes: Uint8Array) => () => timeModule(kernel, bytes, repeat);
  const loops = instrumentModule(kernel.bytes, kernel.file, ['loops']).bytes;
  const sample = instrumentModule(kernel.bytes, kernel.file, ['sample']).bytes;
  const taint = instrumentModule(kernel.bytes, kernel.file, ['taint'], { programLimitPages: 4096 });
  const layout = taint.sites.passes.taint as TaintLayout;
  const programBase = taint.sites.layout?.programBase ?? 0;
  const selection = await selectRegions({
    file: kernel.file,
    bytes: kernel.bytes,
    mode: 'selective',
    invoke: kernel.invoke,
    args: kernel.args,
    argv: [],
    timeoutMs: 600_000,
    taint: { params: kernel.args.map((_, arg) => ({ name: `p${arg}`, arg })) },
  });
  const regionTime = (module: RegionModule) => async (): Promise<Timed> => {
    const reps = await module.run({
      file: kernel.file,
      invoke: kernel.invoke,
      args: kernel.args,
      argv: [],
      repeat,
      timeoutMs: 600_000,
    });
    return { medianMs: median(reps.map((r) => r.ms)), result: reps[0]!.result };
  };
  const none = instrumentRegions(kernel.file, kernel.bytes, []);
  const selective = instrumentRegions(kernel.file, kernel.bytes, selection.functions ?? []);
  return {
    selected: selective.instrumentedFunctions,
    selectiveBytes: selective.bytes,
    noneBytes: none.bytes,
    variants: [
      { name: 'plain', time: time(kernel.bytes) },
      { name: 'loops', time: time(loops) },
      { name: 'sample', time: time(sample) },
      { name: 'none', time: regionTime(none) },
      { name: 'selective', time: regionTime(selective) },
      { name: 'taint', time: () => timeTaint(kernel, taint.bytes, layout, programBase, repeat) },
    ],
  };
}

interface Row {
  kernel: string;
  plainMs: number;
  ratios: Record<Mode, number>;
  instructionsPerCall: number;
  loopsInstructions: InstructionRatio;
  sampleInstructions: InstructionRatio;
  taintInstructions: InstructionRatio;
  /** Exact instruction ratios of selective measurement: ÷ the measurement pass without regions, ÷ uninstrumented. */
  selectiveInstructions: { none: number; plain: number };
  /** Per round, selective ms ÷ the same round's no-region ms. */
  selectiveRounds: number[];
  selected: number;
  same: boolean;
}
const rows: Row[] = [];
for (const kernel of loadKernels(externalSuite)) {
  const { variants, selected, selectiveBytes, noneBytes } = await variantsOf(kernel);
  const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  let reference: string | null = null;
  let same = true;
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + round) % variants.length]!;
      const timed = await variant.time();
      const result = JSON.stringify(timed.result);
      reference ??= result;
      same &&= result === reference;
      times.get(variant.name)!.push(timed.medianMs);
    }
  }
  const at = (name: string) => median(times.get(name)!);
  const profile = await profileLoops(kernel.file, kernel.bytes, {
    invoke: kernel.invoke,
    args: kernel.args,
    argv: [],
    repeat: 1,
    timeoutMs: 600_000,
  });
  const calls = profile.functions.reduce((sum, f) => sum + f.calls, 0);
  const selectiveWhole = (await instructionRatioOf(kernel, selectiveBytes)).whole;
  const noneWhole = (await instructionRatioOf(kernel, noneBytes)).whole;
  const noneTimes = times.get('none')!;
  rows.push({
    selectiveInstructions: { none: selectiveWhole / noneWhole, plain: selectiveWhole },
    selectiveRounds: times.get('selective')!.map((ms, round) => ms / noneTimes[round]!),
    kernel: kernel.name,
    plainMs: at('plain'),
    selected,
    same,
    loopsInstructions: await instructionRatio(kernel, 'loops'),
    sampleInstructions: await instructionRatio(kernel, 'sample'),
    taintInstructions: await instructionRatio(kernel, 'taint'),
    instructionsPerCall: profile.totalInstructions / Math.max(1, calls),
    ratios: {
      loops: at('loops') / at('plain'),
      sample: at('sample') / at('plain'),
      selective: at('selective') / at('none'),
      taint: at('taint') / at('plain'),
    },
  });
  console.error(`${kernel.name}: done`);
}

const ratio = (v: number) => `${v.toFixed(3)}×`;
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return '-';
  return `${ratio(median(sorted))} [${sorted[0]!.toFixed(3)}–${sorted.at(-1)!.toFixed(3)}]`;
};
console.log(
  `overhead on third-party-shaped kernels: time ÷ uninstrumented (selective: ÷ the measurement pass without regions); median over ${rounds} alternating rounds of median-of-${repeat}; sampling period ${DEFAULT_PERIOD}`,
);
console.log(
  renderTable(rows, [
    { header: 'kernel', value: (r) => r.kernel },
    { header: 'plain ms', value: (r) => r.plainMs.toFixed(1), align: 'right' },
    { header: 'instr/call', value: (r) => r.instructionsPerCall.toFixed(0), align: 'right' },
    ...MODES.map((mode) => ({ header: mode, value: (r: Row) => ratio(r.ratios[mode]), align: 'right' as const })),
    { header: 'regions', value: (r) => String(r.selected), align: 'right' },
    { header: 'loops instr', value: (r) => ratio(r.loopsInstructions.whole), align: 'right' },
    { header: 'hot loop', value: (r) => r.loopsInstructions.hot },
    { header: 'hot instr', value: (r) => ratio(r.loopsInstructions.hotLoop), align: 'right' },
    { header: 'sample instr', value: (r) => ratio(r.sampleInstructions.whole), align: 'right' },
    { header: 'sample hot', value: (r) => ratio(r.sampleInstructions.hotLoop), align: 'right' },
    { header: 'taint instr', value: (r) => ratio(r.taintInstructions.whole), align: 'right' },
    { header: 'selective instr', value: (r) => `${r.selectiveInstructions.none.toFixed(5)}×`, align: 'right' },
    { header: 'selective rounds [min–max]', value: (r) => spread(r.selectiveRounds), align: 'right' },
    { header: 'same result', value: (r) => (r.same ? 'yes' : 'NO') },
  ]),
);
const judged = (figure: number, target: number, digits = 3) =>
  `${figure.toFixed(digits)}× (target <= ${target}×: ${figure <= target ? 'met' : 'NOT met'})`;
const geo = (pick: (r: Row) => number) => geomean(rows.map(pick));
/** A counting mode's row: whole-run and hot-loop instruction ratios, and the wall-time ratio. */
const countedRow = (mode: string, counts: (r: Row) => InstructionRatio, time: (r: Row) => number, target: number) => ({
  mode,
  exact: judged(
    geo((r) => counts(r).whole),
    target,
  ),
  hot: ratio(geo((r) => counts(r).hotLoop)),
  time: judged(geo(time), target),
});
// Every issue-27 figure of this run, side by side with its target: the exact instruction counts
// are the figures to judge (wall time on a shared 2-core machine moves by tens of percent between
// identical modules); the wall-time ratios follow for reference.
console.log(`issue 27 targets, geometric means over the ${rows.length} kernel builds of this run:`);
console.log(
  renderTable(
    [
      countedRow(
        'loops',
        (r) => r.loopsInstructions,
        (r) => r.ratios.loops,
        TARGETS.loops,
      ),
      countedRow(
        'sample',
        (r) => r.sampleInstructions,
        (r) => r.ratios.sample,
        TARGETS.sample,
      ),
      {
        mode: 'selective (÷ no regions)',
        exact: judged(
          geo((r) => r.selectiveInstructions.none),
          TARGETS.selective,
          5,
        ),
        hot: `÷ uninstrumented ${geo((r) => r.selectiveInstructions.plain).toFixed(5)}×`,
        time: `${judged(
          geo((r) => r.ratios.selective),
          TARGETS.selective,
        )}; per-round geomean ${spread(
          (rows[0]?.selectiveRounds ?? []).map((_, round) => geomean(rows.map((r) => r.selectiveRounds[round]!))),
        )}`,
      },
      {
        mode: 'taint (no parameter marked)',
        exact: judged(
          geo((r) => r.taintInstructions.whole),
          TARGETS.taint,
        ),
        hot: '-',
        time: judged(
          geo((r) => r.ratios.taint),
          TARGETS.taint,
        ),
      },
    ],
    [
      { header: 'mode', value: (r) => r.mode },
      { header: 'instructions, exact: whole run', value: (r) => r.exact },
      { header: 'hot loops', value: (r) => r.hot },
      { header: 'wall time (median of rounds)', value: (r) => r.time },
    ],
  ),
);
if (rows.some((r) => !r.same)) process.exitCode = 1;
