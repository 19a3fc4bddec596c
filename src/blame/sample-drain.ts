// Run-worker plugin of the sampled run: empties the sample buffer whenever it fills. The sampling
// pass calls `taintlens.drain_samples` when a record does not fit (instrument/passes/sample.ts);
// this copies the records written so far out of the instance's memory and moves the cursor back to
// the buffer's start, so a run keeps every sample however long it runs, with a buffer of any size.
import type { HostPluginFactory } from '../runtime/plugin.js';
import type { HostPluginSpec } from '../runtime/protocol.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';
import { DRAIN_IMPORT } from '../../instrument/layouts.js';

export interface SampleDrainOptions {
  /** Where the sample buffer starts in the instance's memory. */
  base: number;
  /** The exported global holding the address the next record goes to. */
  cursor: string;
}

export const sampleDrainUrl = new URL(import.meta.url).href;

/** The plugin as every sampled run attaches it (`taintlens sample`/`blame`, and the bench's sample variant). */
export function sampleDrainPlugin(layout: Pick<SampleLayout, 'samples' | 'exports'>): HostPluginSpec {
  const options: SampleDrainOptions = { base: layout.samples.base, cursor: layout.exports.samples };
  return { url: sampleDrainUrl, options };
}

const factory: HostPluginFactory = (rawOptions, context) => {
  const options = rawOptions as SampleDrainOptions;
  const drained: Uint8Array[] = [];
  return {
    imports: () => ({
      [DRAIN_IMPORT.module]: {
        [DRAIN_IMPORT.name]: () => {
          const cursor = context.instance()?.exports[options.cursor];
          const memory = context.memory();
          if (!(cursor instanceof WebAssembly.Global) || !memory) return;
          const end = Number(cursor.value);
          drained.push(new Uint8Array(memory.buffer.slice(options.base, end)));
          cursor.value = options.base;
        },
      },
    }),
    /** The records emptied during the run, oldest first (the buffer's rest is read after the run). */
    afterRun: () => drained,
  };
};

export default factory;
