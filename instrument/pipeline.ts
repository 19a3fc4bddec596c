// Composes instrumentation passes by name (`--mode loops`, later `taint,loops`, ...): reads the
// module once, builds the site table, gives every pass its reserved memory, and emits one module.
import binaryen from 'binaryen';
import { readModule, emitModule } from './module-io.js';
import { analyzeModule, type ModuleAnalysis, type SiteTable } from './sites.js';
import { applyMemoryLayout, planMemoryLayout, type LayoutOptions, type MemoryLayout, type RegionRequest } from './memory-layout.js';
import { finishBinary } from './binary-patch.js';
import { applyLoopProfiler, type LoopProfileLayout } from './passes/loops.js';
import { applyTaint, taintRegions, type TaintOptions } from './passes/taint.js';
import { applyMeasurement, measureRegions, type MeasureLayout, type MeasureOptions } from './passes/measure.js';
import { applySampling, sampleRegions, type SampleOptions } from './passes/sample.js';
import { fileError, messageOf } from '../src/util/errors.js';
import { UnsupportedExpression } from './ir.js';
import { refuseInstrumented } from './instrumented.js';
import { attachSourceLocations } from './debug/attach.js';
import { programExpressions, type InstrumentationLocals } from './program-expressions.js';
import type { Expr } from './ir.js';

export interface InstrumentOptions extends LayoutOptions {
  /** Bytes reserved for the calling-context tree of the loop profiler or of the taint pass's loop sinks (default 16 MiB). */
  contextBytes?: number;
  /** The measurement pass: which functions are regions, trace length. */
  measure?: MeasureOptions;
  /** Source map text for a module whose .wasm.map is not on disk beside it (the AS transform). */
  sourceMap?: string;
}

export interface PassContext {
  module: binaryen.Module;
  analysis: ModuleAnalysis;
  layout: MemoryLayout;
  options: InstrumentOptions;
  /** The program's own accesses and calls, given to the last pass when others ran before it. */
  program?: Set<Expr>;
  /** Locals earlier passes added for their own data only (filled by them, read by taint). */
  instrumentationLocals: InstrumentationLocals;
}

export interface InstrumentationPass {
  name: string;
  describe: string;
  regions(options: InstrumentOptions): RegionRequest[];
  apply(context: PassContext): unknown;
}

const passes = new Map<string, InstrumentationPass>();

export function registerPass(pass: InstrumentationPass): void {
  passes.set(pass.name, pass);
}

export function availableModes(): string[] {
  return [...passes.keys()];
}

registerPass({
  name: 'loops',
  describe: 'loop profile: entries, iterations and instructions per loop and calling context',
  regions: (options) => [{ name: 'loops', bytes: options.contextBytes ?? 16 << 20 }],
  apply: ({ module, analysis, layout, instrumentationLocals }) => applyLoopProfiler(module, analysis, layout.regions.loops!, instrumentationLocals),
});

export interface InstrumentedSites extends SiteTable {
  schema: string;
  module: string;
  modes: string[];
  layout: MemoryLayout | null;
  passes: { loops?: LoopProfileLayout; measure?: MeasureLayout; [mode: string]: unknown };
}

export interface InstrumentResult {
  bytes: Uint8Array;
  sites: InstrumentedSites;
}

export function parseModes(text: string): string[] {
  const modes = text.split(',').map((m) => m.trim()).filter(Boolean);
  for (const mode of modes) {
    if (!passes.has(mode)) throw new Error(`unknown mode '${mode}' (available: ${availableModes().join(', ')})`);
  }
  if (modes.length === 0) throw new Error('no instrumentation mode given');
  return [...new Set(modes)];
}

export function siteTableOf(bytes: Uint8Array, file: string): SiteTable {
  const module = readModule(bytes, file);
  try {
    const table = analyzeModule(module).table;
    attachSourceLocations(table, bytes, file);
    return table;
  } catch (error) {
    throw describeFailure(file, error);
  } finally {
    module.dispose();
  }
}

export function instrumentModule(bytes: Uint8Array, file: string, modes: string[], options: InstrumentOptions = {}): InstrumentResult {
  refuseInstrumented(bytes, file);
  const module = readModule(bytes, file);
  try {
    const analysis = analyzeModule(module);
    attachSourceLocations(analysis.table, bytes, file, options.sourceMap, analysis.functions);
    // Taint runs last: it must see the others' code to leave it alone, and they cannot follow its flattening.
    const chosen = modes.map((mode) => passes.get(mode)!).sort((a, b) => Number(a.name === 'taint') - Number(b.name === 'taint'));
    const program = chosen.length > 1 && chosen.at(-1)!.name === 'taint' ? programExpressions(analysis) : undefined;
    const requests = chosen.flatMap((pass) => pass.regions(options));
    let layout: MemoryLayout | null = null;
    if (requests.length > 0) {
      layout = planMemoryLayout(module, requests, options);
      applyMemoryLayout(module, layout, options);
    }
    const results: InstrumentedSites['passes'] = {};
    const instrumentationLocals: InstrumentationLocals = new Map();
    for (const pass of chosen) {
      results[pass.name] = pass.apply({ module, analysis, layout: layout!, options, program: pass === chosen.at(-1) ? program : undefined, instrumentationLocals });
    }
    let out = emitModule(module, `mode ${modes.join(',')}`);
    if (layout) out = finishBinary(out, layout);
    return {
      bytes: out,
      sites: { schema: 'taintlens/sites@1', module: file, modes, layout, ...analysis.table, passes: results },
    };
  } catch (error) {
    throw describeFailure(file, error);
  } finally {
    module.dispose();
  }
}

function describeFailure(file: string, error: unknown): Error {
  if (error instanceof UnsupportedExpression) return fileError(file, `${error.message}; this instrumentation does not handle it yet`);
  if (error instanceof Error && /^internal:/.test(error.message)) return error;
  if (error instanceof Error && error.name === 'UserError') return error;
  // Binaryen's own failures surface as bare C++ exception objects ("[object Object]").
  if (!(error instanceof Error) && typeof error === 'object') return fileError(file, 'Binaryen failed on this module (a C++ exception without a message)');
  return fileError(file, messageOf(error));
}

registerPass({
  name: 'taint',
  describe: 'dynamic taint: which marked parameters reach each loop exit condition and branch',
  regions: (options) => {
    const taint = (options as InstrumentOptions & { taint?: TaintOptions }).taint;
    return taintRegions(taint?.sinkBytes ?? 4 << 20, taint?.granularity, taint?.contextBytes ?? options.contextBytes);
  },
  apply: ({ module, analysis, layout, options, program, instrumentationLocals }) =>
    applyTaint(module, analysis, layout, (options as InstrumentOptions & { taint?: TaintOptions }).taint, program && { expressions: program, locals: instrumentationLocals }),
});

registerPass({
  name: 'measure',
  describe: 'measurement regions: visits, inclusive/exclusive time and summary statistics per function and region call path',
  regions: (options) => measureRegions(options.measure),
  apply: ({ module, analysis, layout, options }) => applyMeasurement(module, analysis, layout.regions.measure!, options.measure),
});

registerPass({
  name: 'sample',
  describe: 'sampled counters for variable blame: an in-Wasm instruction countdown records a sample (region, call path, store addresses) every ~N instructions, plus the allocation log',
  regions: (options) => sampleRegions({ ...(options.contextBytes ? { treeBytes: options.contextBytes } : {}), ...(options as InstrumentOptions & { sample?: SampleOptions }).sample }),
  apply: ({ module, analysis, layout, options }) =>
    applySampling(module, analysis, layout.regions, layout.programBase, (options as InstrumentOptions & { sample?: SampleOptions }).sample),
});
