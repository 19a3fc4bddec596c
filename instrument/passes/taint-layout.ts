// What the taint pass hands to the runtime and the report: the names of its label globals, the
// records it reserves (sink table, calling-context tree, shadow memory), the site records of loops,
// branches and library-cost calls, and the options and library rules it takes.
import type { SourceLocation } from '../debug/locations.js';
import type { RegionRequest } from '../memory-layout.js';
import type { TaintLoopSite, TaintContextLayout } from './taint-sinks.js';
import { shadowRegion, type ShadowGranularity, type ShadowPlacement } from './shadow-memory.js';

export const TAINT_SCHEMA = 'taintlens/taint-sites@1';
export const ARG_GLOBAL = (k: number) => `taintlens$arg${k}`;
export const RET_GLOBAL = 'taintlens$ret';
export const CTL_GLOBAL = 'taintlens$ctl';
export const SHADOW_GLOBAL_PREFIX = 'taintlens$shadow$';

/** Sink records of branches and library-cost calls: 8 bytes (label | executed<<32). Loops: taint-sinks.ts. */
export const SITE_SINK_BYTES = 8;
export type { TaintLoopSite, TaintContextLayout };

export {
  DEFAULT_IMPLICIT_FLOW,
  DEFAULT_POINTER_LABELS,
  IMPLICIT_FLOWS,
  POINTER_LABELS,
  type ImplicitFlow,
  type PointerLabels,
} from './taint-semantics.js';
import type { ImplicitFlow, PointerLabels } from './taint-semantics.js';

/** How a host import propagates labels (the library database, already validated). */
export interface ImportRule {
  /** Result label: 'union' of the arguments (default) or 'none'. */
  result?: 'union' | 'none';
  /**
   * Sources: a named label written to the result or to the memory an argument points to; the
   * memory's label also carries the labels of the arguments `withArgs` (a value made from them).
   */
  sources?: Array<{
    label: string;
    result?: boolean;
    arg?: number;
    bytes?: number;
    bytesArg?: number;
    withArgs?: number[];
  }>;
  /** Cost: the call's volume depends on these parameters and on the labels of these arguments. */
  cost?: { params?: string[]; args?: number[] };
}

export interface TaintOptions {
  /** Rules per import, keyed `module.name`. */
  library?: Record<string, ImportRule>;
  /** Names with fixed label bits (bit i = names[i]); more are assigned at run time. */
  names?: string[];
  /** Skip Binaryen's optimizer after instrumenting (for debugging and measurements). */
  noOptimize?: boolean;
  /** Bytes reserved for the sink table (default 4 MiB). */
  sinkBytes?: number;
  /** Labels per aligned 4-byte word (default, fast) or per byte (exact for narrow stores). */
  granularity?: ShadowGranularity;
  /** Bytes reserved for the calling-context tree holding the loop sinks (default 16 MiB). */
  contextBytes?: number;
  /** Control (implicit) flow besides data flow (default DEFAULT_IMPLICIT_FLOW). */
  implicitFlow?: ImplicitFlow;
  /**
   * A load's label: 'data' the labels of the bytes read; 'join' (default) also the address's label
   * (DFSan's default, -dfsan-combine-pointer-labels-on-load).
   */
  pointerLabels?: PointerLabels;
  /** Skip alignment versioning of loops (shadow-versioning.ts; for measurements). */
  noVersioning?: boolean;
  /** Keep the repeated label reads of innermost loops (shadow-loop-labels.ts; for measurements). */
  noLoopLabels?: boolean;
  /** Keep the invariant words where each innermost loop's label chains join them (taint-chain-joins.ts; for measurements). */
  noChainJoins?: boolean;
  /** Keep the invariant words and pointer labels each innermost loop's label chains read (taint-chain-words.ts; for measurements). */
  noChainWords?: boolean;
  /**
   * Site-table names of the functions to instrument (default: all). The others, which the run is
   * expected not to enter, keep their code plus an entry guard (taint-uncovered.ts).
   */
  functions?: string[];
  /**
   * Site-table names of instrumented functions that ran little (src/taint/cold-functions.ts): the
   * same shadow code, without the cleanup, versioning and optimizer steps that only make it faster.
   * 'all': every instrumented function (tests, the fuzzer).
   */
  cold?: string[] | 'all';
}

export interface TaintBranchSite {
  id: string;
  function: string;
  loop: string | null;
  kind: 'if' | 'br_if' | 'br_table';
  sink: number;
  /** The branch's source line, from debug info. */
  location?: SourceLocation | null;
}
export interface TaintImportSite {
  id: string;
  call: string | null;
  function: string;
  loop: string | null;
  import: string;
  params: string[];
  sink: number;
}

export interface TaintLayout {
  schema: string;
  shadow: ShadowPlacement;
  sinks: { base: number; bytes: number };
  /** The calling-context tree holding the loop sinks. */
  contexts: TaintContextLayout;
  /** Fixed label names (bit order) baked into the module by library sources. */
  names: string[];
  loops: TaintLoopSite[];
  branches: TaintBranchSite[];
  imports: TaintImportSite[];
  /** Functions that keep no context node: a sink-table word set to 1 when one runs (`executed` comes from the run). */
  entered: Array<{ function: string; sink: number }>;
  /** With a covered set: per function left uninstrumented, a sink-table word set to 1 if the run entered it (the run is then not data). */
  guards?: Array<{ function: string; sink: number }>;
  /** Exported argument-label globals, index k for argument k of any export. */
  argGlobals: string[];
  /** Exported global name → exported name of its shadow global. */
  shadowGlobals: Record<string, string>;
  maxArgs: number;
  /** Exported function name → internal (site table) name. */
  exports: Record<string, string>;
}

export function taintRegions(
  sinkBytes: number,
  granularity: ShadowGranularity = 'word',
  contextBytes = 16 << 20,
): RegionRequest[] {
  return [
    { name: 'taint', bytes: sinkBytes },
    { name: 'taint-contexts', bytes: contextBytes },
    shadowRegion(granularity),
  ];
}
