// Control-flow facts the taint pass needs per function, read off the CFG (cfg.ts): for every
// conditional branch, the loops it exits, its immediate post-dominator and the locals assigned
// between the two (they carry the condition's label past the merge); for every node, the
// non-exit branches it is control dependent on; per loop, the values carried into the next
// iteration.
import { buildCfg, branchRegion, exitedLoops, type Cfg } from './cfg.js';
import { Id, Unary, idOf, runtimeNumber, type Expr } from './ir.js';
import { loopCounters } from './loop-counters.js';

export interface BranchPlan {
  expr: Expr;
  node: number;
  /** Loops (CFG / site-table order index) this branch can leave, innermost first; empty: an ordinary branch. */
  exits: number[];
  /** Immediate post-dominator (where the branch's control dependence ends), -1: none. */
  ipdom: number;
  /** Nodes between the branch and its post-dominator. */
  region: Set<number>;
  /** Locals assigned in the region whose value after it matters. */
  joined: number[];
  /** The region holds a return (its value depends on the branch). */
  returns: boolean;
  /**
   * The branch is a float-to-int conversion's range check (clang's `(int)x` without non-trapping
   * conversions: `fabs(x) < 2^31 ? trunc(x) : INT_MIN`): its region only computes locals, one of
   * them by a trapping truncation. Its result is data derived from x, as the one instruction a
   * native build uses, so it joins the condition's label with or without implicit flow.
   */
  conversion: boolean;
}

/** Trapping float-to-int truncations (the non-trapping ones need no range check). */
export const TRAPPING_TRUNCATIONS = new Set(
  [
    'TruncSFloat32ToInt32',
    'TruncSFloat32ToInt64',
    'TruncUFloat32ToInt32',
    'TruncUFloat32ToInt64',
    'TruncSFloat64ToInt32',
    'TruncSFloat64ToInt64',
    'TruncUFloat64ToInt32',
    'TruncUFloat64ToInt64',
  ].map(runtimeNumber),
);

/** A conversion's range check guards a handful of local assignments around one truncation. */
const CONVERSION_REGION_SIZE = 40;

export interface ControlPlan {
  cfg: Cfg;
  branches: Map<Expr, BranchPlan>;
  /** Branches whose control dependence ends where a node starts. */
  endingAt: Map<number, BranchPlan[]>;
  /** Non-exit branches whose region holds `node` (its control label while inside them). */
  controlling(node: number): BranchPlan[];
  /** Innermost natural loop of the node holding `expr`, or -1. */
  loopOf(expr: Expr): number;
  /** Locals assigned and read in loop k (values carried into the next iteration). */
  carried(k: number): number[];
  /** The counters of loop k read in it (loop-counters.ts), if it holds another loop; else none. */
  nestCounters(k: number): number[];
}

/**
 * `ownLocals`: locals below this index are the program's own (always kept); temporaries are kept
 * when read outside the region (`totalGets` counts reads in the whole function).
 */
export function planControl(body: Expr, ownLocals: number, totalGets: Map<number, number>): ControlPlan {
  const cfg = buildCfg(body);
  const truncating = new Set<number>();
  for (const [expr, node] of cfg.nodeOf)
    if (idOf(expr) === Id.Unary && TRAPPING_TRUNCATIONS.has(Unary.getOp(expr))) truncating.add(node);
  const branches = new Map<Expr, BranchPlan>();
  const endingAt = new Map<number, BranchPlan[]>();
  for (const node of cfg.nodes) {
    if (!node.branch || !cfg.live[node.id]) continue;
    const region = branchRegion(cfg, node.id);
    const sets = new Set<number>();
    const inside = new Map<number, number>();
    let returns = false;
    for (const n of region) {
      const r = cfg.nodes[n]!;
      r.sets.forEach((x) => sets.add(x));
      r.gets.forEach((k, x) => inside.set(x, (inside.get(x) ?? 0) + k));
      returns ||= r.returns;
    }
    const exits = exitedLoops(cfg, node.id);
    const conversion =
      exits.length === 0 &&
      !returns &&
      [...region].some((n) => truncating.has(n)) &&
      [...region].every((n) => !cfg.nodes[n]!.effects) &&
      [...region].reduce((size, n) => size + cfg.nodes[n]!.size, 0) <= CONVERSION_REGION_SIZE;
    const joined = [...sets].filter((x) => x < ownLocals || (totalGets.get(x) ?? 0) > (inside.get(x) ?? 0));
    const plan: BranchPlan = {
      expr: node.branch,
      node: node.id,
      exits,
      ipdom: cfg.ipdom[node.id]!,
      region,
      joined,
      returns,
      conversion,
    };
    branches.set(node.branch, plan);
    if (plan.ipdom >= 0) {
      const list = endingAt.get(plan.ipdom) ?? [];
      list.push(plan);
      endingAt.set(plan.ipdom, list);
    }
  }
  const ordinary = [...branches.values()].filter((b) => b.exits.length === 0);
  const carriedCache = new Map<number, number[]>();
  const nestCountersCache = new Map<number, number[]>();
  const plan: ControlPlan = {
    cfg,
    branches,
    endingAt,
    controlling: (node) => ordinary.filter((b) => b.region.has(node)),
    loopOf: (expr) => {
      const node = cfg.nodeOf.get(expr);
      return node === undefined ? -1 : cfg.innermost[node]!;
    },
    carried: (k) => {
      let list = carriedCache.get(k);
      if (!list) {
        const sets = new Set<number>();
        const gets = new Set<number>();
        for (const n of cfg.loops[k]!.nodes) {
          cfg.nodes[n]!.sets.forEach((x) => sets.add(x));
          cfg.nodes[n]!.gets.forEach((_, x) => gets.add(x));
        }
        list = [...sets].filter((x) => x < ownLocals && gets.has(x));
        carriedCache.set(k, list);
      }
      return list;
    },
    nestCounters: (k) => {
      let list = nestCountersCache.get(k);
      if (!list) {
        const holdsLoop = cfg.loops.some((l) => l.parent === k && l.nodes.size > 0);
        const carried = new Set(plan.carried(k));
        list = holdsLoop ? loopCounters(cfg.loops[k]!.expr, ownLocals).filter((x) => carried.has(x)) : [];
        nestCountersCache.set(k, list);
      }
      return list;
    },
  };
  return plan;
}
