// Shared benchmark plumbing: time a module's export over fresh instances (median), and print
// ratios measured in the same run so machine noise affects numerator and denominator alike.
import { existsSync, readFileSync } from 'node:fs';
import { runModule } from '../src/runtime/run.js';
import { median } from '../src/util/stats.js';
import { taintPluginUrl } from '../src/taint/analyze.js';
import type { TaintPluginOptions } from '../src/taint/plugin.js';
import type { TaintLayout } from '../instrument/passes/taint.js';
import type { BenchKernel } from './suite.js';

export interface Timed {
  medianMs: number;
  result: unknown;
}

export async function timeModule(kernel: BenchKernel, bytes: Uint8Array, repeat: number): Promise<Timed> {
  const outcome = await runModule({
    file: kernel.file,
    bytes,
    invoke: kernel.invoke,
    args: kernel.args,
    argv: kernel.argv ?? [],
    repeat,
    timeoutMs: 300_000,
  });
  return { medianMs: median(outcome.repetitions.map((r) => r.ms)), result: outcome.repetitions[0]!.result };
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
    repeat,
    timeoutMs: 600_000,
    plugins: [{ url: taintPluginUrl, options }],
    programBase,
  });
  return { medianMs: median(outcome.repetitions.map((r) => r.ms)), result: outcome.repetitions[0]!.result };
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
