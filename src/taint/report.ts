// Turns the taint pass's sink table (copied out of the module's memory) into the taint report:
// per loop the parameters of its exit conditions, per function its loop nests as a dependency
// expression (nesting multiplies, siblings add; a call inside a loop multiplies with the callee's
// expression, an indirect call with the sum of its candidates' that ran), static pruning from the
// site table's constant trip counts, per parameter what it affects, plus tainted branches, code
// not executed and warnings. Loops and functions are also reported per calling context (a full
// call path from the context tree, context-nodes.ts). The exports (Score-P filter, Perf-Taint's
// JSON) are in exports.ts.
import type { InstrumentedSites } from '../../instrument/pipeline.js';
import type { CallSite } from '../../instrument/sites.js';
import type { TaintLayout } from '../../instrument/passes/taint.js';
import { schemaId } from '../util/schema.js';
import { formatLocation } from '../../instrument/debug/locations.js';
import { decodeContextNodes, type TaintContextNode } from './context-nodes.js';

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
  executed: boolean;
  /**
   * The dependency per calling context that ran (a full call path; `call`: the call site that
   * entered the function, null from outside). A call inside a loop multiplies with its callee's
   * dependency in that call's own context, so `dependency` is call-path sensitive.
   */
  contexts: Array<{ node: number; callpath: string[]; call: string | null; caller: string | null; dependency: string | null }>;
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
  notExecuted: { loops: string[]; branches: string[] };
  warnings: string[];
  /** Time of the instrumented run (median over repetitions). */
  timing: { medianMs: number; runs: number };
  /** Where source lines came from, or how to get them. */
  sources?: { origin: string | null; note: string };
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

type Monomial = string[];
/** A polynomial over parameter names: a set of monomials (sorted name lists; [] is the constant 1). */
type Poly = Map<string, Monomial>;

const key = (m: Monomial) => m.join('*');

function poly(...monos: Monomial[]): Poly {
  const p: Poly = new Map();
  for (const m of monos) p.set(key(m), m);
  return p;
}

function add(a: Poly, b: Poly): Poly {
  const out = new Map(a);
  for (const [k, m] of b) out.set(k, m);
  return out;
}

function multiply(a: Poly, b: Poly): Poly {
  const out: Poly = new Map();
  for (const x of a.values()) for (const y of b.values()) {
    const m = [...x, ...y].sort();
    out.set(key(m), m);
  }
  return out;
}

/** Divides: every name of `small` occurs in `big` at least as often. */
function divides(small: Monomial, big: Monomial): boolean {
  const rest = [...big];
  for (const n of small) {
    const i = rest.indexOf(n);
    if (i < 0) return false;
    rest.splice(i, 1);
  }
  return true;
}

/**
 * Simplifies: drops the constant term and every term that divides another (it is dominated:
 * `n + n*m` → `n*m`), orders by degree then names. Null when nothing depends on a parameter.
 */
export function formatPoly(p: Poly, order: string[]): string | null {
  const terms = [...p.values()].filter((m) => m.length > 0);
  const kept = terms.filter((m, i) => !terms.some((o, j) => j !== i && o.length > m.length && divides(m, o)));
  if (kept.length === 0) return null;
  const rank = (n: string) => { const i = order.indexOf(n); return i < 0 ? order.length : i; };
  const sorted = kept.map((m) => [...m].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)));
  sorted.sort((a, b) => b.length - a.length || a.join('*').localeCompare(b.join('*')));
  return sorted.map((m) => m.join('*')).join(' + ');
}

function bitsToNames(bits: number, names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < 32; i++) if ((bits >>> i) & 1) out.push(names[i] ?? `#${i}`);
  return out;
}

export function decodeTaint(input: DecodeInput): TaintReport {
  const { sites, layout, sinks, names } = input;
  const view = new DataView(sinks.buffer, sinks.byteOffset, sinks.byteLength);
  const at = (address: number) => address - layout.sinks.base;
  const warnings = [...(input.warnings ?? [])];

  const loopSite = new Map(sites.loops.map((l) => [l.id, l]));
  const callSite = new Map(sites.calls.map((c) => [c.id, c]));
  const nodes = decodeContextNodes(input.contexts.raw, input.contexts.next, sites, layout);
  const nodesOf = new Map<string, TaintContextNode[]>();
  for (const node of nodes) nodesOf.set(node.function, [...(nodesOf.get(node.function) ?? []), node]);
  const unionBits = (exits: number[]) => exits.reduce((a, b) => a | b, 0) >>> 0;
  const loopSink = new Map<string, { params: string[]; exits: string[][]; iterations: number; entries: number }>();
  const loopContexts = new Map<string, TaintLoopContext[]>();
  for (const loop of layout.loops) {
    const topTested = loopSite.get(loop.id)?.topTested ?? false;
    const exitBits: number[] = new Array<number>(loop.exitConditions).fill(0);
    let allHeaders = 0;
    let allEntries = 0;
    const contexts: TaintLoopContext[] = [];
    for (const node of nodesOf.get(loop.function) ?? []) {
      const sink = node.loops.get(loop.id)!;
      if (sink.entries === 0) continue;
      sink.exits.forEach((bits, i) => (exitBits[i] = (exitBits[i]! | bits) >>> 0));
      allHeaders += sink.headers;
      allEntries += sink.entries;
      contexts.push({
        node: node.index, callpath: node.callpath, call: node.call, caller: node.parent?.function ?? null, params: bitsToNames(unionBits(sink.exits), names),
        exits: sink.exits.map((bits) => bitsToNames(bits, names)), iterations: topTested ? sink.headers - sink.entries : sink.headers,
      });
    }
    loopSink.set(loop.id, {
      params: bitsToNames(unionBits(exitBits), names), exits: exitBits.map((bits) => bitsToNames(bits, names)),
      iterations: topTested ? allHeaders - allEntries : allHeaders, entries: allEntries,
    });
    loopContexts.set(loop.id, contexts);
  }
  const loops: TaintLoop[] = sites.loops.map((site) => {
    const sink = loopSink.get(site.id) ?? { params: [], exits: [], iterations: 0, entries: 0 };
    return {
      id: site.id, function: site.function, parent: site.parent, depth: site.depth,
      params: sink.params, exits: sink.exits, iterations: sink.iterations, executed: sink.entries > 0, staticTrips: site.staticTrips ?? null,
      contexts: loopContexts.get(site.id) ?? [],
    };
  });
  // The run is the ground truth: a loop proven constant whose exit conditions carried labels, or
  // whose iteration count differs from the proof, is reported (and counted) as the run saw it.
  for (const loop of loops) {
    if (loop.staticTrips === null) continue;
    const entries = loopSink.get(loop.id)?.entries ?? 0;
    if (loop.params.length > 0) {
      warnings.push(`${loop.id} (${loop.function}): the static analysis proved ${loop.staticTrips} iteration(s) per entry, but its exit conditions carried ${loop.params.join(', ')} in this run; the report uses the run's labels`);
    } else if (entries > 0 && loop.iterations !== loop.staticTrips * entries) {
      warnings.push(`${loop.id} (${loop.function}): the static analysis proved ${loop.staticTrips} iteration(s) per entry, but the run counted ${loop.iterations} in ${entries} entr${entries === 1 ? 'y' : 'ies'}`);
    }
  }
  const loopById = new Map(loops.map((l) => [l.id, l]));
  const siteWord = (sink: number) => view.getBigUint64(at(sink), true);
  const branches: TaintBranch[] = layout.branches.map((b) => {
    const word = siteWord(b.sink);
    return {
      id: b.id, function: b.function, loop: b.loop, kind: b.kind, params: bitsToNames(Number(word & 0xffffffffn), names), executed: (word >> 32n) !== 0n,
      source: b.location ? formatLocation(b.location) : null,
    };
  });
  const imports: TaintImportCall[] = layout.imports.map((s) => {
    const word = siteWord(s.sink);
    const labels = bitsToNames(Number(word & 0xffffffffn), names);
    return { id: s.id, function: s.function, loop: s.loop, import: s.import, params: [...new Set([...s.params, ...labels])], executed: (word >> 32n) !== 0n };
  });

  const parameters = [...new Set([...names, ...input.declared, ...layout.imports.flatMap((s) => s.params)])];

  // Functions seen running: one of their loops, branches or library-cost calls executed.
  const executedFunctions = new Set<string>();
  for (const l of loops) if (l.executed) executedFunctions.add(l.function);
  for (const b of branches) if (b.executed) executedFunctions.add(b.function);
  for (const i of imports) if (i.executed) executedFunctions.add(i.function);
  for (const node of nodes) executedFunctions.add(node.function);
  const withSinks = new Set<string>([...loops.map((l) => l.function), ...branches.map((b) => b.function), ...imports.map((i) => i.function)]);
  // Callees of an indirect call: the signature-matching table entries (static) that ran in this
  // run. A candidate without any sink cannot be seen running; it is kept (it has no loops, so it
  // adds nothing to a dependency, only to call paths). Null: the table can change at run time.
  const indirectCallees = (call: CallSite): string[] | null =>
    call.candidates ? call.candidates.filter((c) => executedFunctions.has(c) || !withSinks.has(c)) : null;

  // Call graph (direct calls, and indirect calls to their candidates) for call paths and recursion.
  const callees = new Map<string, Set<string>>();
  for (const call of sites.calls) {
    const targets = call.kind === 'direct' && call.target ? [call.target] : call.kind === 'indirect' ? indirectCallees(call) ?? [] : [];
    if (targets.length === 0) continue;
    if (!callees.has(call.function)) callees.set(call.function, new Set());
    for (const t of targets) callees.get(call.function)!.add(t);
  }
  const recursive = findRecursive(sites.functions.map((f) => f.name), callees);
  // A recursive function whose branches outside loops carry parameters (fib(n): `n < 2` ends the
  // recursion) recurses to a parameter-dependent depth: counted like a loop over those parameters.
  const recursionBranches = new Map<string, TaintBranch[]>();
  for (const name of recursive) {
    const deciding = branches.filter((b) => b.function === name && b.loop === null && b.executed && b.params.length > 0);
    if (deciding.length > 0) recursionBranches.set(name, deciding);
  }
  const recursionParams = (name: string) => [...new Set((recursionBranches.get(name) ?? []).flatMap((b) => b.params))].sort();
  const withRecursion = (name: string, p: Poly): Poly => (recursionBranches.has(name) ? multiply(poly(recursionParams(name)), add(p, poly([]))) : p);

  const functionSite = new Map(sites.functions.map((f) => [f.name, f]));
  const keepsNode = new Set(layout.contexts.functions.filter((f) => f.nodeBytes > 0).map((f) => f.name));
  const memo = new Map<string, Poly>();
  const inProgress = new Set<string>();
  const recursionHits = new Set<string>();
  const importPoly = (matches: (i: TaintImportCall) => boolean): Poly => {
    let p: Poly = new Map();
    for (const imp of imports.filter((i) => matches(i) && i.params.length > 0)) p = add(p, poly([...imp.params].sort()));
    return p;
  };
  /**
   * A loop nest's dependency: its own parameters times (1 + nested loops + callees + library
   * costs inside it). With a context node, the loop's parameters and its callees are those of that
   * call path; without one, the union over all contexts.
   */
  const loopPoly = (loopId: string, node: TaintContextNode | null): Poly => {
    const loop = loopById.get(loopId)!;
    const site = loopSite.get(loopId)!;
    let children: Poly = new Map();
    for (const child of sites.loops.filter((l) => l.parent === loopId)) children = add(children, loopPoly(child.id, node));
    for (const callId of site.calls) {
      const call = callSite.get(callId)!;
      const targets = call.kind === 'direct' && call.target ? [call.target] : call.kind === 'indirect' ? indirectCallees(call) ?? [] : [];
      if (node) {
        // A callee keeping a node was entered from here in those child contexts (none: not run, or recursion folded).
        for (const child of node.children) if (child.call === callId) children = add(children, nodePoly(child));
        for (const target of targets) if (!keepsNode.has(target)) children = add(children, functionPoly(target));
      } else {
        for (const target of targets) children = add(children, functionPoly(target));
      }
    }
    children = add(children, importPoly((i) => i.loop === loopId));
    const bits = node ? unionBits(node.loops.get(loopId)?.exits ?? []) : -1;
    const own = poly([...(node ? bitsToNames(bits, names) : loop.params)].sort());
    return children.size === 0 ? own : multiply(own, add(children, poly([])));
  };
  const topLoops = (name: string) => (functionSite.get(name)?.loops ?? []).filter((id) => loopById.get(id)!.parent === null);
  const nodeMemo = new Map<TaintContextNode, Poly>();
  const nodePoly = (node: TaintContextNode): Poly => {
    let p = nodeMemo.get(node);
    if (!p) {
      p = importPoly((i) => i.function === node.function && i.loop === null);
      for (const loopId of topLoops(node.function)) p = add(p, loopPoly(loopId, node));
      p = withRecursion(node.function, p);
      nodeMemo.set(node, p);
    }
    return p;
  };
  /** A function's dependency over all its contexts. */
  const functionPoly = (name: string): Poly => {
    const cached = memo.get(name);
    if (cached) return cached;
    if (inProgress.has(name)) {
      recursionHits.add(name);
      return new Map();
    }
    inProgress.add(name);
    let p: Poly = new Map();
    const contexts = nodesOf.get(name) ?? [];
    if (contexts.length > 0) {
      for (const node of contexts) p = add(p, nodePoly(node));
    } else if (functionSite.has(name)) {
      p = importPoly((i) => i.function === name && i.loop === null);
      for (const loopId of topLoops(name)) p = add(p, loopPoly(loopId, null));
      p = withRecursion(name, p);
    }
    inProgress.delete(name);
    memo.set(name, p);
    return p;
  };

  // The site table names a function without a name section by its first export (or func<N>).
  const entryName = input.entry === null || functionSite.has(input.entry) || !/^\d+$/.test(input.entry) ? input.entry
    : Object.entries(layout.exports).find(([, internal]) => internal === input.entry)?.[0] ?? `func${input.entry}`;
  const paths = callPaths(entryName, callees);

  // Static pruning (no run needed): every loop has a proven constant trip count, no library-cost
  // call, and every call inside a loop goes to functions that are statically pruned themselves
  // (so the dependency is constant without looking at the run). A call cycle through loops is not.
  const staticMemo = new Map<string, boolean>();
  const staticallyConstant = (name: string): boolean => {
    const known = staticMemo.get(name);
    if (known !== undefined) return known;
    staticMemo.set(name, false);
    const fn = functionSite.get(name);
    let ok = !!fn && !layout.imports.some((i) => i.function === name);
    for (const id of fn?.loops ?? []) {
      if (!ok) break;
      const site = loopSite.get(id)!;
      if (site.staticTrips === null || site.staticTrips === undefined) ok = false;
      for (const callId of site.calls) {
        const call = callSite.get(callId)!;
        if (call.kind === 'direct') ok &&= !!call.target && staticallyConstant(call.target);
        else if (call.kind === 'indirect') ok &&= !!call.candidates && call.candidates.every((c) => !functionSite.has(c) || staticallyConstant(c));
      }
    }
    staticMemo.set(name, ok);
    return ok;
  };

  const functions: TaintFunction[] = sites.functions
    .filter((f) => !f.name.startsWith('taintlens$'))
    .map((f) => {
      const p = functionPoly(f.name);
      const dependency = formatPoly(p, parameters);
      const contexts = f.loops.length === 0 ? [] : (nodesOf.get(f.name) ?? []).map((node) => ({
        node: node.index, callpath: node.callpath, call: node.call, caller: node.parent?.function ?? null, dependency: formatPoly(nodePoly(node), parameters),
      }));
      const own = new Set<string>();
      for (const id of f.loops) for (const n of loopById.get(id)!.params) own.add(n);
      for (const m of p.values()) for (const n of m) own.add(n);
      const pruned: TaintFunction['pruned'] = dependency !== null ? null : staticallyConstant(f.name) ? 'static' : 'dynamic';
      return {
        name: f.name, params: parameters.filter((n) => own.has(n)), dependency, pruned, loops: f.loops,
        callpath: paths.get(f.name) ?? null, executed: executedFunctions.has(f.name) || paths.has(f.name), contexts,
      };
    });

  for (const name of recursive) {
    const fn = functions.find((f) => f.name === name);
    const deciding = recursionBranches.get(name);
    if (deciding) {
      const params = recursionParams(name);
      warnings.push(`${name} is recursive and its recursion depth depends on ${params.join(', ')} (branch${deciding.length > 1 ? 'es' : ''} ${deciding.map((b) => b.id).join(', ')}): the dependency counts the recursion like a loop over ${params.join(', ')}`);
    } else if (executedFunctions.has(name) && (fn && fn.dependency !== null || recursionHits.has(name))) {
      warnings.push(`${name} is recursive: its dependency counts one level of recursion, so the volume is an over-approximation (or misses the recursion depth)`);
    }
  }
  const unresolved = sites.calls.filter((c) => c.kind === 'indirect' && c.loop && !c.candidates);
  if (unresolved.length > 0) {
    const shown = unresolved.slice(0, 5).map((c) => `${c.id} in ${c.function} (loop ${c.loop})`).join(', ');
    warnings.push(`indirect call${unresolved.length > 1 ? 's' : ''} ${shown}${unresolved.length > 5 ? ` and ${unresolved.length - 5} more` : ''} inside loops: the table can change at run time (imported, exported, or written by table.set/table.grow), so only callees that ran and keep a calling context (they have loops or call such functions) are part of the dependency expression`);
  }

  const { coverage, prunable } = coverageOf(parameters, loops, functions, branches);

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
    notExecuted: { loops: loops.filter((l) => !l.executed).map((l) => l.id), branches: branches.filter((b) => !b.executed).map((b) => b.id) },
    warnings,
    timing: input.timing,
  };
}

function findRecursive(names: string[], callees: Map<string, Set<string>>): string[] {
  // Tarjan's SCC: members of a cycle (or self-calls) are recursive.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of callees.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || callees.get(v)?.has(v)) out.push(...scc);
    }
  };
  for (const n of names) if (!idx.has(n)) visit(n);
  return out;
}

function callPaths(entry: string | null, callees: Map<string, Set<string>>): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  if (!entry) return paths;
  paths.set(entry, [entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const f = queue.shift()!;
    for (const g of callees.get(f) ?? []) {
      if (paths.has(g)) continue;
      paths.set(g, [...paths.get(f)!, g]);
      queue.push(g);
    }
  }
  return paths;
}

/** Per parameter the loops, functions and branches it reaches, and the parameters that drive none. */
export function coverageOf(parameters: string[], loops: TaintLoop[], functions: TaintFunction[], branches: TaintBranch[]): Pick<TaintReport, 'coverage' | 'prunable'> {
  const coverage: TaintReport['coverage'] = {};
  for (const p of parameters) {
    coverage[p] = {
      loops: loops.filter((l) => l.params.includes(p)).map((l) => l.id),
      functions: functions.filter((f) => f.params.includes(p)).map((f) => f.name),
      branches: branches.filter((b) => b.params.includes(p)).map((b) => b.id),
    };
  }
  return { coverage, prunable: parameters.filter((p) => coverage[p]!.loops.length === 0 && coverage[p]!.functions.length === 0) };
}
