// The taint report of an SPMD run: one report per rank, merged. A loop, branch or import call
// depends on a parameter when it does on any rank (ranks take different paths: the first and last
// rank skip a neighbour, rank 0 roots collectives), ran when it ran on any rank, and its iterations
// add up. A function's dependency is the one with the most terms over the ranks (ties: the lowest
// rank). Every rank's parameters per loop stay in `ranks`, for rank-dependent behaviour.
import { groupBy } from '../util/group-by.js';
import { coverageOf, type TaintLoopContext, type TaintReport } from './report.js';

export interface RankTaint {
  rank: number;
  /** Loop id → parameters of its exit conditions on this rank (loops that ran). */
  loops: Record<string, string[]>;
}

export interface MergedTaintReport extends TaintReport {
  ranks?: RankTaint[];
}

const union = (lists: string[][]): string[] => [...new Set(lists.flat())].sort();

/** One context per call path and call site over the ranks (the first rank's node number), merged as loops are. */
function mergeContexts(contexts: TaintLoopContext[]): TaintLoopContext[] {
  const byPath = groupBy(contexts, (context) => JSON.stringify([context.callpath, context.call]));
  return [...byPath.values()].map((same) => ({
    ...same[0]!,
    params: union(same.map((c) => c.params)),
    exits: Array.from({ length: Math.max(...same.map((c) => c.exits.length)) }, (_, k) =>
      union(same.map((c) => c.exits[k] ?? [])),
    ),
    iterations: same.reduce((sum, c) => sum + c.iterations, 0),
  }));
}

export function mergeRankReports(reports: TaintReport[]): MergedTaintReport {
  const [first, ...rest] = reports;
  if (!first) throw new Error('no rank reports to merge');
  if (rest.length === 0) return first;
  const all = reports;
  const parameters = [...first.parameters];
  for (const r of rest) for (const p of r.parameters) if (!parameters.includes(p)) parameters.push(p);
  const byId = <T extends { id: string }>(pick: (r: TaintReport) => T[]) =>
    all.map((r) => new Map(pick(r).map((x) => [x.id, x])));
  const loopMaps = byId((r) => r.loops);
  const loops = first.loops.map((loop) => {
    const same = loopMaps.map((m) => m.get(loop.id)!).filter(Boolean);
    const exits = loop.exits.map((_, k) => union(same.map((l) => l.exits[k] ?? [])));
    return {
      ...loop,
      params: union(same.map((l) => l.params)),
      exits,
      executed: same.some((l) => l.executed),
      iterations: same.reduce((sum, l) => sum + l.iterations, 0),
      contexts: mergeContexts(same.flatMap((l) => l.contexts)),
    };
  });
  const mergeCalls = <T extends { id: string; params: string[]; executed: boolean }>(
    pick: (r: TaintReport) => T[],
  ): T[] => {
    const maps = byId(pick);
    return pick(first).map((x) => {
      const same = maps.map((m) => m.get(x.id)!).filter(Boolean);
      return { ...x, params: union(same.map((s) => s.params)), executed: same.some((s) => s.executed) };
    });
  };
  const branches = mergeCalls((r) => r.branches);
  const imports = mergeCalls((r) => r.imports);
  const functionMaps = all.map((r) => new Map(r.functions.map((f) => [f.name, f])));
  const functions = first.functions.map((fn) => {
    const same = functionMaps.map((m) => m.get(fn.name)!).filter(Boolean);
    const terms = (d: string | null) => (d === null ? -1 : d.split('+').length + d.length / 1e6);
    const widest = same.reduce((best, f) => (terms(f.dependency) > terms(best.dependency) ? f : best), same[0]!);
    return {
      ...fn,
      params: union(same.map((f) => f.params)),
      dependency: widest.dependency,
      pruned: widest.pruned,
      executed: same.some((f) => f.executed),
    };
  });
  return {
    ...first,
    parameters,
    loops,
    functions,
    branches,
    imports,
    ...coverageOf(parameters, loops, functions, branches),
    notExecuted: {
      loops: loops.filter((l) => !l.executed).map((l) => l.id),
      branches: branches.filter((b) => !b.executed).map((b) => b.id),
    },
    warnings: [...new Set(all.flatMap((r) => r.warnings))],
    ranks: all.map((r, rank) => ({
      rank,
      loops: Object.fromEntries(r.loops.filter((l) => l.executed).map((l) => [l.id, l.params])),
    })),
  };
}
