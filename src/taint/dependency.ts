// A function's dependency expression from the run's loop labels: a loop nest contributes its own
// parameters times (1 + nested loops + callees + library costs inside it); a call inside a loop
// multiplies with the callee's expression in that call's own calling context (or, for a callee
// keeping no context node, over all its contexts); a recursive function whose recursion is decided
// by parameter-carrying branches counts like a loop over those parameters. Also static pruning:
// a function whose loops all have proven constant trip counts and call only such functions.
import type { InstrumentedSites } from '../../instrument/pipeline.js';
import type { CallSite } from '../../instrument/sites.js';
import type { TaintLayout } from '../../instrument/passes/taint.js';
import type { TaintContextNode } from './context-nodes.js';
import type { TaintBranch, TaintImportCall, TaintLoop } from './report.js';
import { add, multiply, poly, type Poly } from './poly.js';
import { bitsToNames, unionBits } from './sink-decode.js';
import { callTargets } from './call-graph.js';
import { groupBy } from '../util/group-by.js';

export interface DependencyInput {
  sites: InstrumentedSites;
  layout: TaintLayout;
  names: string[];
  loops: TaintLoop[];
  branches: TaintBranch[];
  imports: TaintImportCall[];
  /** Context nodes per function. */
  nodesOf: Map<string, TaintContextNode[]>;
  /** Functions on a call cycle. */
  recursive: string[];
  /** Candidates of an indirect call that count (null: unknown). */
  indirectCallees: (call: CallSite) => string[] | null;
}

export interface Dependencies {
  /** A function's dependency over all its contexts. */
  functionPoly(name: string): Poly;
  /** A function's dependency in one calling context. */
  nodePoly(node: TaintContextNode): Poly;
  /** Recursive functions whose executed branches outside loops carry parameters, and those branches. */
  recursionBranches: Map<string, TaintBranch[]>;
  recursionParams(name: string): string[];
  /** Recursive functions met while their own dependency was being computed. */
  recursionHits: Set<string>;
  /** No run needed: every loop has a proven trip count, no library cost, callees in loops likewise. */
  staticallyConstant(name: string): boolean;
}

export function dependencies(input: DependencyInput): Dependencies {
  const { sites, layout, names, loops, branches, imports, nodesOf, indirectCallees } = input;
  const loopSite = new Map(sites.loops.map((l) => [l.id, l]));
  const exitPowers = new Map(layout.loops.map((l) => [l.id, l.exitPowers ?? []]));
  const callSite = new Map(sites.calls.map((c) => [c.id, c]));
  const loopById = new Map(loops.map((l) => [l.id, l]));
  // A recursive function whose branches outside loops carry parameters (fib(n): `n < 2` ends the
  // recursion) recurses to a parameter-dependent depth: counted like a loop over those parameters.
  // Grouped once: yosys has thousands of recursive functions and loops and ~10^5 branches, and a
  // scan of every branch, loop or import per function or loop took minutes.
  const recursive = new Set(input.recursive);
  const recursionBranches: Map<string, TaintBranch[]> = groupBy(
    branches.filter((b) => recursive.has(b.function) && b.loop === null && b.executed && b.params.length > 0),
    (b) => b.function,
  );
  const childLoops = groupBy(sites.loops, (l) => l.parent);
  const importsByLoop = groupBy(
    imports.filter((i) => i.params.length > 0),
    (i) => i.loop,
  );
  const outsideLoops = groupBy(importsByLoop.get(null) ?? [], (i) => i.function);
  const withLibraryCost = new Set(layout.imports.map((i) => i.function));
  const recursionParams = (name: string) =>
    [...new Set((recursionBranches.get(name) ?? []).flatMap((b) => b.params))].sort();
  const withRecursion = (name: string, p: Poly): Poly =>
    recursionBranches.has(name) ? multiply(poly(recursionParams(name)), add(p, poly([]))) : p;

  const functionSite = new Map(sites.functions.map((f) => [f.name, f]));
  const keepsNode = new Set(layout.contexts.functions.filter((f) => f.nodeBytes > 0).map((f) => f.name));
  const memo = new Map<string, Poly>();
  const inProgress = new Set<string>();
  const recursionHits = new Set<string>();
  const importPoly = (calls: TaintImportCall[] | undefined): Poly => {
    let p: Poly = new Map();
    for (const imp of calls ?? []) p = add(p, poly([...imp.params].sort()));
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
    for (const child of childLoops.get(loopId) ?? []) children = add(children, loopPoly(child.id, node));
    for (const callId of site.calls) {
      const call = callSite.get(callId)!;
      const targets = callTargets(call, indirectCallees);
      if (node) {
        // A callee keeping a node was entered from here in those child contexts (none: not run, or recursion folded).
        for (const child of node.children) if (child.call === callId) children = add(children, nodePoly(child));
        for (const target of targets) if (!keepsNode.has(target)) children = add(children, functionPoly(target));
      } else {
        for (const target of targets) children = add(children, functionPoly(target));
      }
    }
    children = add(children, importPoly(importsByLoop.get(loopId)));
    const exitBits = node ? (node.loops.get(loopId)?.exits ?? []) : [];
    const params = node ? bitsToNames(unionBits(exitBits), names) : loop.params;
    const exits = node ? exitBits.map((bits) => bitsToNames(bits, names)) : loop.exits;
    const own = poly(powered(params, exits, exitPowers.get(loopId) ?? []));
    return children.size === 0 ? own : multiply(own, add(children, poly([])));
  };
  const topLoops = (name: string) =>
    (functionSite.get(name)?.loops ?? []).filter((id) => loopById.get(id)!.parent === null);
  const nodeMemo = new Map<TaintContextNode, Poly>();
  const nodePoly = (node: TaintContextNode): Poly => {
    let p = nodeMemo.get(node);
    if (!p) {
      p = importPoly(outsideLoops.get(node.function));
      for (const loopId of topLoops(node.function)) p = add(p, loopPoly(loopId, node));
      p = withRecursion(node.function, p);
      nodeMemo.set(node, p);
    }
    return p;
  };
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
      p = importPoly(outsideLoops.get(name));
      for (const loopId of topLoops(name)) p = add(p, loopPoly(loopId, null));
      p = withRecursion(name, p);
    }
    inProgress.delete(name);
    memo.set(name, p);
    return p;
  };

  // Static pruning (no run needed): every loop has a proven constant trip count, no library-cost
  // call, and every call inside a loop goes to functions that are statically pruned themselves
  // (so the dependency is constant without looking at the run). A call cycle through loops is not.
  const staticMemo = new Map<string, boolean>();
  const staticallyConstant = (name: string): boolean => {
    const known = staticMemo.get(name);
    if (known !== undefined) return known;
    staticMemo.set(name, false);
    const fn = functionSite.get(name);
    let ok = !!fn && !withLibraryCost.has(name);
    for (const id of fn?.loops ?? []) {
      if (!ok) break;
      const site = loopSite.get(id)!;
      if (site.staticTrips === null || site.staticTrips === undefined) ok = false;
      for (const callId of site.calls) {
        const call = callSite.get(callId)!;
        if (call.kind === 'direct') ok &&= !!call.target && staticallyConstant(call.target);
        else if (call.kind === 'indirect')
          ok &&= !!call.candidates && call.candidates.every((c) => !functionSite.has(c) || staticallyConstant(c));
      }
    }
    staticMemo.set(name, ok);
    return ok;
  };
  return { functionPoly, nodePoly, recursionBranches, recursionParams, recursionHits, staticallyConstant };
}

/**
 * A loop's own monomial: its parameters, each repeated as often as the highest power of an exit
 * condition carrying it (`i < n*n*n` → n*n*n; taint-exit-power.ts); a power is 1 when unknown.
 */
function powered(params: string[], exits: string[][], powers: Array<number | null>): string[] {
  return params
    .flatMap((name) => {
      const k = Math.max(1, ...exits.map((exit, i) => (exit.includes(name) ? (powers[i] ?? 1) : 1)));
      return new Array<string>(k).fill(name);
    })
    .sort();
}
