// How much of a run's work each defined function did: one i64 per function in a reserved region,
// raised at the function's entry by the instructions of its body outside loops and at every loop
// iteration by the instructions of that loop's body outside its nested loops. It is a coarse
// instruction count (a branch not taken counts all the same), enough to tell a function whose code
// ran millions of times from one that ran a few times: the taint analysis's first run uses it
// (src/taint/coverage.ts) to find the functions it instruments (work > 0) and those of them whose
// instrumented code may stay unoptimized (src/taint/cold-functions.ts). No call into the host.
import binaryen from 'binaryen';
import type { PassDescriptor } from '../pass-contract.js';
import { Func, Loop, i64Const, type Expr } from '../ir.js';
import type { ModuleAnalysis } from '../sites.js';
import { ownInstructions, type CountedFunction } from '../entry-work-analysis.js';
import { MEMORY_GROW_FUNCTION } from '../memory-layout.js';

export const ENTRY_WORK_SCHEMA = 'taintlens/entry-work@1';

/** Bytes per function's counter. */
export const ENTRY_WORK_COUNTER_BYTES = 8;

/** Bytes reserved for the counters unless the options say otherwise (131,072 functions). */
export const DEFAULT_ENTRY_WORK_BYTES = 1 << 20;

export interface EntryWorkLayout {
  schema: string;
  /** The counters: the little-endian u64 at `base + 8 * i` is the work of `functions[i]`. */
  base: number;
  bytes: number;
  /** Site-table names of the defined functions, by counter (the pipeline's own helpers have none: null). */
  functions: Array<string | null>;
}

/** The pass's counts from the full site analysis (the mode composed with others). */
export function countedFunctions(analysis: ModuleAnalysis): CountedFunction[] {
  const loopIndex = new Map(analysis.table.loops.map((l) => [l.id, l]));
  return analysis.functions.map((fn) => {
    const loops = fn.site.loops.map((id) => loopIndex.get(id)!);
    const position = new Map(loops.map((l, i) => [l.id, i]));
    return {
      index: fn.site.index,
      name: fn.site.name,
      func: fn.func,
      instructions: fn.site.instructions,
      loopExprs: fn.loopExprs,
      own: ownInstructions(
        fn.site.instructions,
        loops,
        loops.map((l) => (l.parent === null ? null : position.get(l.parent)!)),
      ),
    };
  });
}

/** The counters' record: one per counted function, named unless it is one of the pipeline's own. */
export function entryWorkLayout(counted: CountedFunction[], region: { base: number; bytes: number }): EntryWorkLayout {
  const needed = counted.length * ENTRY_WORK_COUNTER_BYTES;
  if (needed > region.bytes)
    throw new Error(
      `the entry-work counters need ${needed} bytes for ${counted.length} functions, ${region.bytes} are reserved (entryWorkBytes)`,
    );
  return {
    schema: ENTRY_WORK_SCHEMA,
    base: region.base,
    bytes: needed,
    functions: counted.map((fn) => (isCounted(fn) ? fn.name : null)),
  };
}

function isCounted(fn: CountedFunction): boolean {
  const name = Func.getName(fn.func);
  return Func.getBody(fn.func) !== 0 && name !== MEMORY_GROW_FUNCTION && !name.startsWith('taintlens$');
}

export function applyEntryWork(
  module: binaryen.Module,
  counted: CountedFunction[],
  region: { base: number; bytes: number },
): EntryWorkLayout {
  const layout = entryWorkLayout(counted, region);
  for (const fn of counted) {
    if (!isCounted(fn)) continue;
    const offset = region.base + fn.index * ENTRY_WORK_COUNTER_BYTES;
    const add = (by: number): Expr =>
      module.i64.store(
        offset,
        8,
        module.i32.const(0),
        module.i64.add(module.i64.load(offset, 8, module.i32.const(0)), i64Const(module, by)),
      );
    fn.loopExprs.forEach((loop, i) => {
      Loop.setBody(loop, module.block(null, [add(fn.own.loops[i]!), Loop.getBody(loop)], binaryen.auto));
    });
    const body = Func.getBody(fn.func);
    Func.setBody(fn.func, module.block(null, [add(fn.own.entry), body], Func.getResults(fn.func)));
  }
  return layout;
}

/** The counters of a run's region, by the layout's function names (functions not entered left out). */
export function readEntryWork(layout: EntryWorkLayout, counters: Uint8Array): Map<string, number> {
  const view = new DataView(counters.buffer, counters.byteOffset, counters.byteLength);
  const work = new Map<string, number>();
  layout.functions.forEach((name, i) => {
    if (name === null) return;
    const count = view.getBigUint64(i * ENTRY_WORK_COUNTER_BYTES, true);
    if (count !== 0n) work.set(name, Number(count));
  });
  return work;
}

export const entryWorkPass: PassDescriptor<EntryWorkLayout> = {
  name: 'entry-work',
  describe: 'how much each defined function ran: instructions per entry and per loop iteration, counted per function',
  requires: ['site-analysis', 'reserved-memory'],
  provides: [],
  order: {},
  reserves: ['entry-work'],
  siteRecord: 'EntryWorkLayout: the counter region and the function of each of its counters',
  regions: (options) => [{ name: 'entry-work', bytes: options.entryWorkBytes ?? DEFAULT_ENTRY_WORK_BYTES }],
  apply: ({ module, analysis, layout }) =>
    applyEntryWork(module, countedFunctions(analysis), layout.regions['entry-work']!),
};
