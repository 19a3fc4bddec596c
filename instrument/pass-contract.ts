// The contract between an instrumentation pass and the pipeline that composes passes
// (`--mode loops,taint`): each pass file exports a descriptor saying what the pass is called, what
// it needs and leaves behind, where it must run in a composition, which memory regions it reserves
// and which site record it emits. pass-registry.ts orders and validates compositions from these.
import type binaryen from 'binaryen';
import type { ModuleAnalysis } from './sites.js';
import type { LayoutOptions, MemoryLayout, RegionRequest } from './memory-layout.js';
import type { InstrumentationLocals } from './program-expressions.js';
import type { Expr } from './ir.js';
import type { MeasureOptions } from './passes/measure.js';
import type { SampleOptions } from './passes/sample.js';
import type { TaintOptions } from './passes/taint.js';

export interface InstrumentOptions extends LayoutOptions {
  /** Bytes reserved for the calling-context tree of the loop profiler or of the taint pass's loop sinks (default 16 MiB). */
  contextBytes?: number;
  /** The measurement pass: which functions are regions, trace length. */
  measure?: MeasureOptions;
  /** The taint pass: library rules, label names, shadow granularity, sink sizes. */
  taint?: TaintOptions;
  /** The sampling pass: period and buffer sizes. */
  sample?: SampleOptions;
  /** Bytes reserved for the entry bitmap (one per defined function; default 1 MiB). */
  entryBitmapBytes?: number;
  /** Bytes reserved for the entry-work counters (8 per defined function; default 1 MiB). */
  entryWorkBytes?: number;
  /** Source map text for a module whose .wasm.map is not on disk beside it (the AS transform). */
  sourceMap?: string;
}

/** What the pipeline hands every pass. */
export const PIPELINE_INPUTS = [
  /** The site table and per-function analysis (loops, calls, CFG), read before any pass ran. */
  'site-analysis',
  /** The memory layout with the pass's own regions placed and the program relocated above them. */
  'reserved-memory',
  /** The program's own accesses and calls, recorded before any pass; given to a pass that runs after others. */
  'program-expressions',
] as const;

/** What a pass can leave for the passes after it. */
export type PassProduct =
  /** Locals a pass added for its own data only (counters, node addresses): later passes leave them alone. */
  'instrumentation-locals';

export type PassInput = (typeof PIPELINE_INPUTS)[number] | PassProduct;

export interface PassContext {
  module: binaryen.Module;
  analysis: ModuleAnalysis;
  layout: MemoryLayout;
  options: InstrumentOptions;
  /** The program's own accesses and calls: set for a pass that requires them and runs after others. */
  program?: Set<Expr>;
  /** Filled by passes that provide 'instrumentation-locals', read by those that use them. */
  instrumentationLocals: InstrumentationLocals;
}

export interface PassOrder {
  /** Passes that, when composed with this one, must run before it. */
  after?: readonly string[];
  /** This pass must run after every other one; the reason is part of the contract (and of the error when two claim it). */
  last?: string;
}

export interface PassDescriptor<SiteRecord = unknown> {
  /** The mode name (`--mode <name>`), also the key of its record in sites.json's `passes`. */
  readonly name: string;
  readonly describe: string;
  /** What it needs: pipeline inputs, or products of a pass that runs before it. */
  readonly requires: readonly PassInput[];
  /** What it uses when a pass before it provides it, and does without otherwise. */
  readonly uses?: readonly PassProduct[];
  /** What it leaves for the passes after it. */
  readonly provides: readonly PassProduct[];
  readonly order: PassOrder;
  /** Names of the memory regions it reserves (`regions` asks for these and no others). */
  readonly reserves: readonly string[];
  /** What `sites.json`'s `passes.<name>` holds: what a decoder needs to read the pass's results. */
  readonly siteRecord: string;
  /** The regions to reserve, sized for these options. */
  regions(options: InstrumentOptions): RegionRequest[];
  /** Rewrites the module; returns its site record. */
  apply(context: PassContext): SiteRecord;
}
