// The entry-work mode on its own (the taint analysis's first run, src/taint/coverage.ts): the
// pipeline's steps with the light analysis (entry-work-analysis.ts) instead of the site table's.
// Its table lists the functions only (name and instruction count per counter), which is what the
// coverage run reads back; loops and call sites are not analysed, and the table says so.
import { readModule, emitModule } from './module-io.js';
import { applyMemoryLayout, planMemoryLayout } from './memory-layout.js';
import { finishBinary } from './binary-patch.js';
import { fitEngineLimits, type FittedFunction } from './engine-limits.js';
import { patchEntryWork } from './entry-work-binary.js';
import { analyzeEntryWork } from './entry-work-analysis.js';
import { applyEntryWork, entryWorkLayout, entryWorkPass } from './passes/entry-work.js';
import type { InstrumentOptions } from './pass-contract.js';
import type { FunctionSite } from './sites.js';
import type { InstrumentResult } from './pipeline.js';

/** The entry-work module and its functions-only table, or null when the module needs the full pipeline (tail calls). */
export function instrumentEntryWork(
  bytes: Uint8Array,
  file: string,
  options: InstrumentOptions,
): InstrumentResult | null {
  const module = readModule(bytes, file);
  try {
    const analysis = analyzeEntryWork(module);
    if (analysis === null) return null;
    const layout = planMemoryLayout(module, entryWorkPass.regions(options), options);
    const region = layout.regions['entry-work']!;
    const entryWork = entryWorkLayout(analysis.functions, region);
    let fitted: FittedFunction[] = [];
    const patched = patchEntryWork(
      bytes,
      layout,
      region,
      analysis.functions.map((f) => f.own),
    );
    let emitted: Uint8Array;
    if ('bytes' in patched) {
      emitted = patched.bytes;
      if (!WebAssembly.validate(emitted as Uint8Array<ArrayBuffer>))
        throw new Error(`internal: the entry-work binary edit produced a module Node cannot compile`);
    } else {
      applyMemoryLayout(module, layout, options);
      applyEntryWork(module, analysis.functions, region);
      fitted = fitEngineLimits(module);
      emitted = emitModule(module, `mode ${entryWorkPass.name}`);
    }
    const out = finishBinary(emitted, layout);
    const functions: FunctionSite[] = analysis.functions.map((f) => ({
      id: `F${f.index}`,
      index: f.index,
      name: f.name,
      instructions: f.instructions,
      loops: [],
      calls: [],
    }));
    return {
      bytes: out,
      sites: {
        schema: 'taintlens/sites@1',
        module: file,
        modes: [entryWorkPass.name],
        layout,
        analysed: 'functions',
        functions,
        loops: [],
        calls: [],
        ...(analysis.unnamed > 0 ? { unnamed: analysis.unnamed } : {}),
        passes: { [entryWorkPass.name]: entryWork },
        ...(fitted.length > 0 ? { fitted } : {}),
      },
    };
  } finally {
    module.dispose();
  }
}
