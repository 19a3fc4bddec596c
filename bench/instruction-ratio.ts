// Instructions an instrumented module executes per instruction of the original, counted exactly by
// the loop profiler run over the instrumented module itself: its reserved names are renamed first
// (the pipeline refuses a module that carries them), which changes no instruction. For the whole
// run and for the original's hottest loop (the loop with the most own instructions, taken with
// everything it calls: inclusive counts, summed over its calling contexts).
import binaryen from 'binaryen';
import { instrumentModule } from '../instrument/pipeline.js';
import { RESERVED_PREFIX } from '../instrument/reserved-names.js';
import type { SampleLayout } from '../instrument/passes/sample.js';
import { profileLoops } from '../src/profile/profile-run.js';
import type { LoopProfile } from '../src/profile/loop-profile.js';
import type { BenchKernel } from './suite.js';

export interface InstructionRatio {
  whole: number;
  hotLoop: number;
  /** `function/loop` of the original's hottest loop. */
  hot: string;
}

function renameReserved(bytes: Uint8Array): Uint8Array {
  const module = binaryen.readBinary(bytes);
  try {
    // The module's own features: with all of them Binaryen writes the measurement pass's clock
    // import in a form the run's module reader refuses.
    const features = module.getFeatures();
    const renamed = binaryen.parseText(module.emitText().replaceAll(RESERVED_PREFIX, 'counted$'));
    try {
      renamed.setFeatures(features);
      return renamed.emitBinary();
    } finally {
      renamed.dispose();
    }
  } finally {
    module.dispose();
  }
}

const inclusiveOf = (profile: LoopProfile, fn: string, loop: string) =>
  profile.loops
    .filter((l) => l.function === fn && l.loop === loop)
    .reduce((sum, l) => sum + l.inclusiveInstructions, 0);

/**
 * Where the original's loop `id` sits in a module whose sample pass put an unchecked copy after
 * each of `counted.loops` and a whole copy before each of `counted.whole`
 * (instrument/passes/sample-trips.ts): loop ids count every loop in module order, so each copy
 * before it shifts it by one. The unchecked copy nests in its original, so the original's inclusive
 * count holds both; the whole copy is the loop right before it, counted beside it.
 */
function shiftedLoopIds(id: string, counted: CountedCopies): string[] {
  const index = Number(id.slice(1));
  const before = (ids: readonly string[], inclusive: boolean) =>
    ids.filter((c) => (inclusive ? Number(c.slice(1)) <= index : Number(c.slice(1)) < index)).length;
  const shifted = index + before(counted.loops, false) + before(counted.whole, true);
  return counted.whole.includes(id) ? [`L${shifted - 1}`, `L${shifted}`] : [`L${shifted}`];
}

/** The sample pass's counted loops (each followed by its unchecked copy) and those with a whole copy before them. */
export interface CountedCopies {
  loops: readonly string[];
  whole: readonly string[];
}

/** `mode`'s instruction ratios on `kernel` (taint runs without its plugin: no parameter marked, as in bench/harness.ts; a mode whose module needs a host plugin to run is not supported). */
export async function instructionRatio(
  kernel: BenchKernel & { bytes: Uint8Array },
  mode: string,
): Promise<InstructionRatio> {
  const { bytes, sites } = instrumentModule(kernel.bytes, kernel.file, [mode]);
  const layout = sites.passes.sample as SampleLayout | undefined;
  return instructionRatioOf(kernel, bytes, { loops: layout?.countedLoops ?? [], whole: layout?.wholeLoops ?? [] });
}

/** The instruction ratios of an already instrumented module of `kernel` (countedLoops: the sample pass's copies, if it ran). */
export async function instructionRatioOf(
  kernel: BenchKernel & { bytes: Uint8Array },
  instrumentedBytes: Uint8Array,
  countedLoops: CountedCopies = { loops: [], whole: [] },
): Promise<InstructionRatio> {
  const run = { invoke: kernel.invoke, args: kernel.args, argv: kernel.argv ?? [], repeat: 1, timeoutMs: 600_000 };
  const original = await profileLoops(kernel.file, kernel.bytes, run);
  const hot = [...original.loops].sort((a, b) => b.instructions - a.instructions)[0];
  const counted = await profileLoops(kernel.file, renameReserved(instrumentedBytes), run);
  if (JSON.stringify(counted.result) !== JSON.stringify(original.result))
    throw new Error(`${kernel.file}: instrumentation changed the result`);
  return {
    whole: counted.totalInstructions / original.totalInstructions,
    hotLoop: hot
      ? shiftedLoopIds(hot.loop, countedLoops).reduce((sum, id) => sum + inclusiveOf(counted, hot.function, id), 0) /
        inclusiveOf(original, hot.function, hot.loop)
      : NaN,
    hot: hot ? `${hot.function.replaceAll('(anonymous namespace)::', '').replace(/\(.*$/, '')}/${hot.loop}` : '-',
  };
}
