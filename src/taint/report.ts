// Turns the taint pass's sink table (copied out of the module's memory) into the taint report:
// per loop the parameters of its exit conditions, per function its loop nests as a dependency
// expression (nesting multiplies, siblings add; a call inside a loop multiplies with the callee's
// expression, an indirect call with the sum of its candidates' that ran), static pruning from the
// site table's constant trip counts, per parameter what it affects, plus tainted branches, code
// not executed and warnings. Loops and functions are also reported per calling context (a full
// call path from the context tree, context-nodes.ts). The exports (Score-P filter, Perf-Taint's
// JSON) are in exports.ts.
import { groupBy } from '../util/group-by.js';
import type { InstrumentedSites } from '../../instrument/pipeline.js';
import type { CallSite } from '../../instrument/sites.js';
import type { TaintLayout } from '../../instrument/passes/taint.js';
import type { ImplicitFlow, PointerLabels } from '../../instrument/passes/taint-layout.js';
import type { ShadowGranularity } from '../../instrument/passes/shadow-placement.js';
import { schemaId } from '../util/schema.js';
import { decodeContextNodes, type TaintContextNode } from './context-nodes.js';
import { formatPoly } from './poly.js';
import { decodeLoops, decodeSiteSinks } from './sink-decode.js';
import { callPaths, calleesOf, findRecursive } from './call-graph.js';
import { dependencies } from './dependency.js';

export { formatPoly };

/** The taint report's JSON version (2: per-context call paths and per-exit-condition parameters, timing). */
export const TAINT_REPORT_VERSION = 2;

/**
 * A loop's sinks in one calling context of its function: the call path from the entry, the call
 * site that entered the function (`call` in `caller`; null when entered from outside).
 */
export interface TaintLoopContext {
  /** The context's number (one per call path node; the same for all loops of that invocation context). */
  node: number;
  callpath: string[];
  call: string | null;
  caller: string | null;
  params: string[];
  /** Parameters per exit condition of the loop (by the pass's ordinal), in this context. */
  exits: string[][];
  iterations: number;
}

export interface TaintLoop {
  id: string;
  function: string;
  parent: string | null;
  depth: number;
  params: string[];
  /** Parameters per exit condition, over all contexts. */
  exits: string[][];
  iterations: number;
  executed: boolean;
  /**
   * Iterations per entry proven constant by the static analysis of the original module
   * (instrument/static-trips.ts), or null when not proven. The run's labels win when they disagree.
   */
  staticTrips: number | null;
  /** Per calling context of the loop's function (those that ran). */
  contexts: TaintLoopContext[];
  /** `file:line` from debug info (sources.ts), null without. */
  source?: string | null;
}

export interface TaintFunction {
  name: string;
  /** `file:line` from debug info and whether it is library code (sources.ts). */
  source?: string | null;
  library?: boolean;
  params: string[];
  dependency: string | null;
  pruned: 'static' | 'dynamic' | null;
  loops: string[];
  /** A call path from the entry (static call graph), or null when not reachable statically. */
  callpath: string[] | null;
  /** Whether it ran in this run (its context node, a sink that ran, or its entry mark), never from static reachability. */
  executed: boolean;
  /**
   * The dependency per calling context that ran (a full call path; `call`: the call site that
   * entered the function, null from outside). A call inside a loop multiplies with its callee's
   * dependency in that call's own context, so `dependency` is call-path sensitive.
   */
  contexts: Array<{
    node: number;
    callpath: string[];
    call: string | null;
    caller: string | null;
    dependency: string | null;
  }>;
}

export interface TaintBranch {
  id: string;
  function: string;
  loop: string | null;
  kind: string;
  params: string[];
  executed: boolean;
  /** `file:line` of the branch from debug info, null without. */
  source?: string | null;
}

export interface TaintImportCall {
  id: string;
  function: string;
  loop: string | null;
  import: string;
  params: string[];
  executed: boolean;
}

export interface TaintReport {
  schema: string;
  /** What a WASI program printed (absent when nothing). */
  stdout?: string;
  stderr?: string;
  module: string;
  entry: string | null;
  parameters: string[];
  loops: TaintLoop[];
  functions: TaintFunction[];
  branches: TaintBranch[];
  imports: TaintImportCall[];
  coverage: Record<string, { loops: string[]; functions: string[]; branches: string[] }>;
  prunable: string[];
  /**
   * The constant part of the program as a class: loops proven constant before the run (`staticTrips`:
   * trip count fixed, exit conditions label-free on every execution), loops that ran and were only
   * seen constant, and functions pruned statically or dynamically (`pruned`). Filters and selective
   * measurement leave them out.
   */
  constant: { provenLoops: number; observedLoops: number; staticFunctions: number; dynamicFunctions: number };
  notExecuted: { loops: string[]; branches: string[] };
  warnings: string[];
  /** Time of the instrumented run (median over repetitions). */
  timing: { medianMs: number; runs: number };
  /** Where source lines came from, or how to get them. */
  sources?: { origin: string | null; note: string };
  /** The propagation rules of the run (reports written before they were recorded lack it). */
  semantics?: TaintSemantics;
}

export interface TaintSemantics {
  implicitFlow: ImplicitFlow;
  pointerLabels: PointerLabels;
  shadow: ShadowGranularity;
}

export interface DecodeInput {
  file: string;
  sites: InstrumentedSites;
  layout: TaintLayout;
  sinks: Uint8Array;
  /** The context tree's memory up to its allocation cursor `next`. */
  contexts: { raw: Uint8Array; next: number };
  timing: { medianMs: number; runs: number };
  /** Label names by bit (from the run). */
  names: string[];
  /** Internal name of the function the run entered (export or _start), if known. */
  entry: string | null;
  /** Parameters named on the command line or by the library (reported even when unseen). */
  declared: string[];
  warnings?: string[];
}

/**
 * The taint report of one run: its sinks decoded (sink-decode.ts), the call graph (call-graph.ts),
 * each function's dependency expression per calling context (dependency.ts), then coverage per
 * parameter and the warnings a reader needs.
 */
export function decodeTaint(input: DecodeInput): TaintReport {
  const { sites, layout, names } = input;
  const warnings = [...(input.warnings ?? [])];
  const nodes = decodeContextNodes(input.contexts.raw, input.contexts.next, sites, layout);
  const nodesOf: Map<string, TaintContextNode[]> = groupBy(nodes, (node) => node.function);
  const { loops } = decodeLoops(sites, layout, nodesOf, names, warnings);
  const loopById = new Map(loops.map((l) => [l.id, l]));
  const { branches, imports, entered } = decodeSiteSinks(layout, input.sinks, names);
  const parameters = [...new Set([...names, ...input.declared, ...layout.imports.flatMap((s) => s.params)])];

  // Functions seen running: one of their loops, branches or library-cost calls executed.
  const executedFunctions = new Set<string>();
  for (const l of loops) if (l.executed) executedFunctions.add(l.function);
  for (const b of branches) if (b.executed) executedFunctions.add(b.function);
  for (const i of imports) if (i.executed) executedFunctions.add(i.function);
  for (const node of nodes) executedFunctions.add(node.function);
  for (const name of entered) executedFunctions.add(name);
  const withSinks = new Set<string>([
    ...loops.map((l) => l.function),
    ...branches.map((b) => b.function),
    ...imports.map((i) => i.function),
  ]);
  // Callees of an indirect call: the signature-matching table entries (static) that ran in this
  // run. A candidate without any sink cannot be seen running; it is kept (it has no loops, so it
  // adds nothing to a dependency, only to call paths). Null: the table can change at run time.
  const indirectCallees = (call: CallSite): string[] | null =>
    call.candidates ? call.candidates.filter((c) => executedFunctions.has(c) || !withSinks.has(c)) : null;
  // Call graph (direct calls, and indirect calls to their candidates) for call paths and recursion.
  const callees = calleesOf(sites.calls, indirectCallees);
  const recursive = findRecursive(
    sites.functions.map((f) => f.name),
    callees,
  );
  const deps = dependencies({ sites, layout, names, loops, branches, imports, nodesOf, recursive, indirectCallees });

  // The site table names a function without a name section by its first export (or func<N>).
  const functionSite = new Map(sites.functions.map((f) => [f.name, f]));
  const entryName =
    input.entry === null || functionSite.has(input.entry) || !/^\d+$/.test(input.entry)
      ? input.entry
      : (Object.entries(layout.exports).find(([, internal]) => internal === input.entry)?.[0] ?? `func${input.entry}`);
  const paths = callPaths(entryName, callees);

  const functions: TaintFunction[] = sites.functions
    .filter((f) => !f.name.startsWith('taintlens$'))
    .map((f) => {
      const p = deps.functionPoly(f.name);
      const dependency = formatPoly(p, parameters);
      const contexts =
        f.loops.length === 0
          ? []
          : (nodesOf.get(f.name) ?? []).map((node) => ({
              node: node.index,
              callpath: node.callpath,
              call: node.call,
              caller: node.parent?.function ?? null,
              dependency: formatPoly(deps.nodePoly(node), parameters),
            }));
      const own = new Set<string>();
      for (const id of f.loops) for (const n of loopById.get(id)!.params) own.add(n);
      for (const m of p.values()) for (const n of m) own.add(n);
      const pruned: TaintFunction['pruned'] =
        dependency !== null ? null : deps.staticallyConstant(f.name) ? 'static' : 'dynamic';
      return {
        name: f.name,
        params: parameters.filter((n) => own.has(n)),
        dependency,
        pruned,
        loops: f.loops,
        callpath: paths.get(f.name) ?? null,
        executed: executedFunctions.has(f.name),
        contexts,
      };
    });

  const functionByName = new Map(functions.map((f) => [f.name, f]));
  for (const name of recursive) {
    const fn = functionByName.get(name);
    const deciding = deps.recursionBranches.get(name);
    if (deciding) {
      const params = deps.recursionParams(name);
      warnings.push(
        `${name} is recursive and its recursion depth depends on ${params.join(', ')} (branch${deciding.length > 1 ? 'es' : ''} ${deciding.map((b) => b.id).join(', ')}): the dependency counts the recursion like a loop over ${params.join(', ')}`,
      );
    } else if (executedFunctions.has(name) && ((fn && fn.dependency !== null) || deps.recursionHits.has(name))) {
      warnings.push(
        `${name} is recursive: its dependency counts one level of recursion, so the volume is an over-approximation (or misses the recursion depth)`,
      );
    }
  }
  const unresolved = sites.calls.filter((c) => c.kind === 'indirect' && c.loop && !c.candidates);
  if (unresolved.length > 0) {
    const shown = unresolved
      .slice(0, 5)
      .map((c) => `${c.id} in ${c.function} (loop ${c.loop})`)
      .join(', ');
    warnings.push(
      `indirect call${unresolved.length > 1 ? 's' : ''} ${shown}${unresolved.length > 5 ? ` and ${unresolved.length - 5} more` : ''} inside loops: the table can change at run time (imported, exported, or written by table.set/table.grow), so only callees that ran and keep a calling context (they have loops or call such functions) are part of the dependency expression`,
    );
  }

  const { coverage, prunable, constant } = coverageOf(parameters, loops, functions, branches);

  return {
    schema: schemaId('taint', TAINT_REPORT_VERSION),
    module: input.file,
    entry: input.entry,
    parameters,
    loops,
    functions,
    branches,
    imports,
    coverage,
    prunable,
    constant,
    notExecuted: {
      loops: loops.filter((l) => !l.executed).map((l) => l.id),
      branches: branches.filter((b) => !b.executed).map((b) => b.id),
    },
    warnings,
    timing: input.timing,
  };
}

/** Per parameter the loops, functions and branches it reaches, and the parameters that drive none. */
export function coverageOf(
  parameters: string[],
  loops: TaintLoop[],
  functions: TaintFunction[],
  branches: TaintBranch[],
): Pick<TaintReport, 'coverage' | 'prunable' | 'constant'> {
  const coverage: TaintReport['coverage'] = {};
  for (const p of parameters) {
    coverage[p] = {
      loops: loops.filter((l) => l.params.includes(p)).map((l) => l.id),
      functions: functions.filter((f) => f.params.includes(p)).map((f) => f.name),
      branches: branches.filter((b) => b.params.includes(p)).map((b) => b.id),
    };
  }
  return {
    coverage,
    prunable: parameters.filter((p) => coverage[p]!.loops.length === 0 && coverage[p]!.functions.length === 0),
    constant: {
      provenLoops: loops.filter((l) => l.staticTrips !== null).length,
      observedLoops: loops.filter((l) => l.staticTrips === null && l.executed && l.params.length === 0).length,
      staticFunctions: functions.filter((f) => f.pruned === 'static').length,
      dynamicFunctions: functions.filter((f) => f.pruned === 'dynamic').length,
    },
  };
}
