// Composes instrumentation passes by mode name (`--mode loops`, `loops,taint`, ...): reads the
// module once, builds the site table, orders and checks the passes through their descriptors
// (pass-registry.ts), gives every pass its reserved memory, and emits one module.
import { readModule, emitModule } from './module-io.js';
import { analyzeModule, type SiteTable } from './sites.js';
import { applyMemoryLayout, planMemoryLayout, type MemoryLayout } from './memory-layout.js';
import { finishBinary } from './binary-patch.js';
import type { LoopProfileLayout } from './passes/loops.js';
import type { MeasureLayout } from './passes/measure.js';
import { fileError, messageOf } from '../src/util/errors.js';
import { UnsupportedExpression } from './ir.js';
import { refuseInstrumented } from './instrumented.js';
import { attachSourceLocations } from './debug/attach.js';
import { programExpressions, type InstrumentationLocals } from './program-expressions.js';
import type { InstrumentOptions } from './pass-contract.js';
import { passRegistry } from './pass-registry.js';
import { fitEngineLimits, type FittedFunction } from './engine-limits.js';
import { isTailCall, lowerTailCalls } from './tail-calls.js';
import { instrumentEntryWork } from './entry-work-module.js';

export type { InstrumentOptions, PassContext, PassDescriptor } from './pass-contract.js';

export function availableModes(): string[] {
  return passRegistry.names();
}

export interface InstrumentedSites extends SiteTable {
  schema: string;
  module: string;
  modes: string[];
  layout: MemoryLayout | null;
  passes: { loops?: LoopProfileLayout; measure?: MeasureLayout; [mode: string]: unknown };
  /** Functions whose locals were merged to stay inside the engine's limit (absent when none). */
  fitted?: FittedFunction[];
  /** Tail calls run as a call and a return under instrumentation (tail-calls.ts; absent when none). */
  tailCalls?: number;
  /** 'functions': only the functions were analysed (the entry-work mode alone), `loops` and `calls` are left empty. */
  analysed?: 'functions';
}

export interface InstrumentResult {
  bytes: Uint8Array;
  sites: InstrumentedSites;
}

/** `loops,taint` → the modes as given, duplicates dropped; throws when one is unknown or they cannot compose. */
export function parseModes(text: string): string[] {
  return passRegistry.parse(text);
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

export function instrumentModule(
  bytes: Uint8Array,
  file: string,
  modes: string[],
  options: InstrumentOptions = {},
): InstrumentResult {
  refuseInstrumented(bytes, file);
  const chosen = passRegistry.compose(modes);
  if (chosen.length === 1 && chosen[0]!.name === 'entry-work') {
    // The taint analysis's first run: its own light path (entry-work-module.ts), unless the module has tail calls.
    let light: InstrumentResult | null;
    try {
      light = instrumentEntryWork(bytes, file, options);
    } catch (error) {
      throw describeFailure(file, error);
    }
    if (light) return light;
  }
  const module = readModule(bytes, file);
  try {
    let analysis = analyzeModule(module);
    const withTailCalls = analysis.functions.filter((f) => f.callExprs.some(isTailCall)).map((f) => f.func);
    const tailCalls = withTailCalls.length > 0 ? lowerTailCalls(module, withTailCalls) : 0;
    if (tailCalls > 0) analysis = analyzeModule(module);
    attachSourceLocations(analysis.table, bytes, file, options.sourceMap, analysis.functions);
    // The program's own accesses and calls, recorded before any pass, for a pass that runs after others.
    const wantsProgram = (index: number) => index > 0 && chosen[index]!.requires.includes('program-expressions');
    const program = chosen.some((_, index) => wantsProgram(index)) ? programExpressions(analysis) : undefined;
    const requests = chosen.flatMap((pass) => {
      const regions = pass.regions(options);
      const undeclared = regions.find((region) => !pass.reserves.includes(region.name));
      if (undeclared)
        throw new Error(
          `internal: pass ${pass.name} asks for region '${undeclared.name}', which its descriptor does not reserve`,
        );
      return regions;
    });
    let layout: MemoryLayout | null = null;
    if (requests.length > 0) {
      layout = planMemoryLayout(module, requests, options);
      applyMemoryLayout(module, layout, options);
    }
    const results: InstrumentedSites['passes'] = {};
    const instrumentationLocals: InstrumentationLocals = new Map();
    chosen.forEach((pass, index) => {
      results[pass.name] = pass.apply({
        module,
        analysis,
        layout: layout!,
        options,
        program: wantsProgram(index) ? program : undefined,
        instrumentationLocals,
      });
    });
    const fitted = fitEngineLimits(module);
    let out = emitModule(module, `mode ${modes.join(',')}`);
    if (layout) out = finishBinary(out, layout);
    return {
      bytes: out,
      sites: {
        schema: 'taintlens/sites@1',
        module: file,
        modes,
        layout,
        ...analysis.table,
        passes: results,
        ...(fitted.length > 0 ? { fitted } : {}),
        ...(tailCalls > 0 ? { tailCalls } : {}),
      },
    };
  } catch (error) {
    throw describeFailure(file, error);
  } finally {
    module.dispose();
  }
}

function describeFailure(file: string, error: unknown): Error {
  if (error instanceof UnsupportedExpression)
    return fileError(file, `${error.message}; this instrumentation does not handle it yet`);
  if (error instanceof Error && /^internal:/.test(error.message)) return error;
  if (error instanceof Error && error.name === 'UserError') return error;
  // Binaryen's own failures surface as bare C++ exception objects ("[object Object]").
  if (!(error instanceof Error) && typeof error === 'object')
    return fileError(file, 'Binaryen failed on this module (a C++ exception without a message)');
  return fileError(file, messageOf(error));
}
