// Which defined functions a run enters: one byte per function in a reserved region, set to 1 by a
// store at the function's entry (no call into the host). The taint analysis runs a module with
// this pass first and instruments only the functions that byte says ran (src/taint/coverage.ts):
// code that never runs adds nothing to any label.
import binaryen from 'binaryen';
import type { PassDescriptor } from '../pass-contract.js';
import { Func } from '../ir.js';
import type { ModuleAnalysis } from '../sites.js';
import { MEMORY_GROW_FUNCTION } from '../memory-layout.js';

export const ENTRY_BITMAP_SCHEMA = 'taintlens/entry-bitmap@1';

/** Bytes reserved for the bitmap unless the options say otherwise: one per defined function. */
export const DEFAULT_ENTRY_BITMAP_BYTES = 1 << 20;

export interface EntryBitmapLayout {
  schema: string;
  /** The bitmap: byte i is 1 once `functions[i]` was entered. */
  base: number;
  bytes: number;
  /** Site-table names of the defined functions, by bitmap byte (the pipeline's own helpers have none: null). */
  functions: Array<string | null>;
}

export function applyEntryBitmap(
  module: binaryen.Module,
  analysis: ModuleAnalysis,
  region: { base: number; bytes: number },
): EntryBitmapLayout {
  if (analysis.functions.length > region.bytes)
    throw new Error(
      `the entry bitmap has ${region.bytes} bytes for ${analysis.functions.length} functions (entryBitmapBytes)`,
    );
  const functions = analysis.functions.map((fn) => {
    const name = Func.getName(fn.func);
    const body = Func.getBody(fn.func);
    if (!body || name === MEMORY_GROW_FUNCTION || name.startsWith('taintlens$')) return null;
    const mark = module.i32.store8(region.base + fn.site.index, 1, module.i32.const(0), module.i32.const(1));
    Func.setBody(fn.func, module.block(null, [mark, body], Func.getResults(fn.func)));
    return fn.site.name;
  });
  return { schema: ENTRY_BITMAP_SCHEMA, base: region.base, bytes: analysis.functions.length, functions };
}

export const entryBitmapPass: PassDescriptor<EntryBitmapLayout> = {
  name: 'entry-bitmap',
  describe: 'which functions a run enters: one byte per defined function, set at its entry',
  requires: ['site-analysis', 'reserved-memory'],
  provides: [],
  order: {},
  reserves: ['entry-bitmap'],
  siteRecord: 'EntryBitmapLayout: the bitmap region and the function of each of its bytes',
  regions: (options) => [{ name: 'entry-bitmap', bytes: options.entryBitmapBytes ?? DEFAULT_ENTRY_BITMAP_BYTES }],
  apply: ({ module, analysis, layout }) => applyEntryBitmap(module, analysis, layout.regions['entry-bitmap']!),
};
