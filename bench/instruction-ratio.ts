// Instructions an instrumented module executes per instruction of the original, counted exactly by
// the loop profiler run over the instrumented module itself: its reserved names are renamed first
// (the pipeline refuses a module that carries them), which changes no instruction. For the whole
// run and for the original's hottest loop (the loop with the most own instructions, taken with
// everything it calls: inclusive counts, summed over its calling contexts).
import binaryen from 'binaryen';
import { instrumentModule } from '../instrument/pipeline.js';
import { RESERVED_PREFIX } from '../instrument/reserved-names.js';
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
    module.setFeatures(binaryen.Features.All);
    const renamed = binaryen.parseText(module.emitText().replaceAll(RESERVED_PREFIX, 'counted$'));
    try {
      renamed.setFeatures(binaryen.Features.All);
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

/** `mode`'s instruction ratios on `kernel` (taint runs without its plugin: no parameter marked, as in bench/harness.ts; a mode whose module needs a host plugin to run is not supported). */
export async function instructionRatio(
  kernel: BenchKernel & { bytes: Uint8Array },
  mode: string,
): Promise<InstructionRatio> {
  const run = { invoke: kernel.invoke, args: kernel.args, argv: kernel.argv ?? [], repeat: 1, timeoutMs: 600_000 };
  const original = await profileLoops(kernel.file, kernel.bytes, run);
  const hot = [...original.loops].sort((a, b) => b.instructions - a.instructions)[0];
  const instrumented = renameReserved(instrumentModule(kernel.bytes, kernel.file, [mode]).bytes);
  const counted = await profileLoops(kernel.file, instrumented, run);
  if (JSON.stringify(counted.result) !== JSON.stringify(original.result))
    throw new Error(`${kernel.file}: ${mode} changed the result`);
  return {
    whole: counted.totalInstructions / original.totalInstructions,
    hotLoop: hot ? inclusiveOf(counted, hot.function, hot.loop) / inclusiveOf(original, hot.function, hot.loop) : NaN,
    hot: hot ? `${hot.function.replaceAll('(anonymous namespace)::', '').replace(/\(.*$/, '')}/${hot.loop}` : '-',
  };
}
