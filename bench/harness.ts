// Shared benchmark plumbing: time a module's export over fresh instances (median), and print
// ratios measured in the same run so machine noise affects numerator and denominator alike.
import { existsSync, readFileSync } from 'node:fs';
import { runModule } from '../src/runtime/run.js';
import { median } from '../src/cli/run-options.js';
import type { BenchKernel } from './suite.js';

export interface Timed {
  medianMs: number;
  result: unknown;
}

export async function timeModule(kernel: BenchKernel, bytes: Uint8Array, repeat: number): Promise<Timed> {
  const outcome = await runModule({
    file: kernel.file, bytes, invoke: kernel.invoke, args: kernel.args, argv: kernel.argv ?? [], repeat, timeoutMs: 300_000,
  });
  return { medianMs: median(outcome.repetitions.map((r) => r.ms)), result: outcome.repetitions[0]!.result };
}

export function loadKernels(suite: BenchKernel[]): Array<BenchKernel & { bytes: Uint8Array }> {
  return suite.filter((k) => existsSync(k.file)).map((k) => ({ ...k, bytes: readFileSync(k.file) }));
}

export function geomean(values: number[]): number {
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
}

export function repeatFromArgs(defaultRepeat: number): number {
  const flag = process.argv.indexOf('--repeat');
  return flag >= 0 ? Number(process.argv[flag + 1]) : defaultRepeat;
}
