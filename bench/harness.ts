// Shared benchmark plumbing: time a module's export over fresh instances (median), and print
// ratios measured in the same run so machine noise affects numerator and denominator alike.
// Every variant, plain or instrumented, is timed the same way (TIMING_METHOD): compiled whole with
// TurboFan before its first call, so no repetition runs in V8's baseline tier (a hot function moves
// to TurboFan only for its next call: a one-call kernel would be timed in whichever tier it started
// in, and an instrumented one often never left Liftoff), one warm-up repetition discarded, the
// median of the rest, both wall time and CPU time (src/runtime/process-cpu.ts: the time other
// processes hold the core is not counted).
import { existsSync, readFileSync } from 'node:fs';
import { runModule } from '../src/runtime/run.js';
import { median } from '../src/util/stats.js';
import { taintPluginUrl } from '../src/taint/analyze.js';
import type { TaintPluginOptions } from '../src/taint/plugin.js';
import type { TaintLayout } from '../instrument/passes/taint.js';
import type { SampleLayout } from '../instrument/passes/sample.js';
import type { HostPluginSpec } from '../src/runtime/protocol.js';
import { sampleDrainPlugin } from '../src/blame/sample-drain.js';
import type { BenchKernel } from './suite.js';

export interface Timed {
  /** Median wall time of the timed repetitions. */
  medianMs: number;
  /** Median CPU time over the timed repetitions (the process's, which only waits for the run meanwhile). */
  cpuMs: number;
  result: unknown;
}

/** Repetitions run before the timed ones and discarded (first-call costs: code pages, caches, wrappers). */
export const WARM_UP_REPETITIONS = 1;

/** One line for a bench's header: how every variant is timed. */
export const TIMING_METHOD = `each variant compiled whole with TurboFan, ${WARM_UP_REPETITIONS} warm-up repetition discarded, fresh instance per repetition`;

/** What every timed run of a variant adds to its run options (see TIMING_METHOD). */
export function timedRun(repeat: number): { repeat: number; optimized: true } {
  return { repeat: repeat + WARM_UP_REPETITIONS, optimized: true };
}

/** The median times of a timed run's repetitions after the warm-up ones. */
export function timedOf(repetitions: ReadonlyArray<{ ms: number; cpuMs: number; result: unknown }>): Timed {
  const timed = repetitions.slice(WARM_UP_REPETITIONS);
  return {
    medianMs: median(timed.map((r) => r.ms)),
    cpuMs: median(timed.map((r) => r.cpuMs)),
    result: repetitions[0]!.result,
  };
}

export async function timeModule(
  kernel: BenchKernel,
  bytes: Uint8Array,
  repeat: number,
  plugins: HostPluginSpec[] = [],
): Promise<Timed> {
  const outcome = await runModule({
    file: kernel.file,
    bytes,
    invoke: kernel.invoke,
    args: kernel.args,
    argv: kernel.argv ?? [],
    ...timedRun(repeat),
    timeoutMs: 300_000,
    plugins,
  });
  return timedOf(outcome.repetitions);
}

/** Times a sample-instrumented module as `taintlens sample` runs it: a full buffer is emptied by the host (sample-drain.ts), no sample dropped. */
export async function timeSample(
  kernel: BenchKernel,
  bytes: Uint8Array,
  layout: SampleLayout,
  repeat: number,
): Promise<Timed> {
  return timeModule(kernel, bytes, repeat, [sampleDrainPlugin(layout)]);
}

/** Times a taint-instrumented module with the taint plugin attached (no parameter marked: the shadow work is all there is). */
export async function timeTaint(
  kernel: BenchKernel,
  bytes: Uint8Array,
  layout: TaintLayout,
  programBase: number,
  repeat: number,
): Promise<Timed> {
  const options: TaintPluginOptions = {
    shadow: layout.shadow,
    names: layout.names,
    args: [],
    globals: [],
    maxLabels: 32,
  };
  const outcome = await runModule({
    file: kernel.file,
    bytes,
    invoke: kernel.invoke,
    args: kernel.args,
    argv: kernel.argv ?? [],
    ...timedRun(repeat),
    timeoutMs: 600_000,
    plugins: [{ url: taintPluginUrl, options }],
    programBase,
  });
  return timedOf(outcome.repetitions);
}

/** The suite's kernels whose binaries exist; `--only a,b` keeps the named ones. */
export function loadKernels(suite: BenchKernel[]): Array<BenchKernel & { bytes: Uint8Array }> {
  const flag = process.argv.indexOf('--only');
  const only = flag >= 0 ? new Set((process.argv[flag + 1] ?? '').split(',')) : null;
  return suite
    .filter((k) => existsSync(k.file) && (only === null || only.has(k.name)))
    .map((k) => ({ ...k, bytes: readFileSync(k.file) }));
}

export function geomean(values: number[]): number {
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
}

export function repeatFromArgs(defaultRepeat: number): number {
  const flag = process.argv.indexOf('--repeat');
  return flag >= 0 ? Number(process.argv[flag + 1]) : defaultRepeat;
}

export interface Comparison {
  baselineMs: number;
  candidateMs: number;
  same: boolean;
}

/**
 * Times a baseline and a candidate in alternating rounds (a noisy neighbour slows both alike) and
 * keeps the best median of each; `same` says whether both returned the same result every time.
 */
export async function compareTimings(
  rounds: number,
  baseline: () => Promise<Timed>,
  candidate: () => Promise<Timed>,
): Promise<Comparison> {
  const a: number[] = [];
  const b: number[] = [];
  let same = true;
  for (let round = 0; round < rounds; round++) {
    const x = await baseline();
    const y = await candidate();
    same &&= JSON.stringify(x.result) === JSON.stringify(y.result);
    a.push(x.medianMs);
    b.push(y.medianMs);
  }
  return { baselineMs: Math.min(...a), candidateMs: Math.min(...b), same };
}
