// `taint --top N`: the rows of the taint tables that matter most, so the report of a large program
// stays readable. Parameter-dependent rows come first, then the costliest by iterations (a
// function's: the iterations of its loops; a branch's: those of its enclosing loop). Loops keep
// their enclosing loops, as `loops --top` does, and every table keeps the report's order.
import type { TaintBranch, TaintFunction, TaintLoop } from './report.js';

interface Ranked {
  dependent: boolean;
  cost: number;
  index: number;
}

/** Indices of the `count` highest ranked rows: dependent first, then by cost, then in order. */
function best(rows: readonly Ranked[], count: number): Set<number> {
  const ranked = [...rows].sort(
    (a, b) => Number(b.dependent) - Number(a.dependent) || b.cost - a.cost || a.index - b.index,
  );
  return new Set(ranked.slice(0, Math.max(0, count)).map((r) => r.index));
}

/** The `count` rows that matter most (dependent first, then costliest), in their order. */
export function topRows<Row>(
  rows: readonly Row[],
  count: number,
  dependent: (row: Row) => boolean,
  cost: (row: Row) => number,
): Row[] {
  const chosen = best(
    rows.map((row, index) => ({ dependent: dependent(row), cost: cost(row), index })),
    count,
  );
  return rows.filter((_, index) => chosen.has(index));
}

export function topLoops(loops: readonly TaintLoop[], count: number): TaintLoop[] {
  const chosen = best(
    loops.map((l, index) => ({ dependent: l.params.length > 0, cost: l.iterations, index })),
    count,
  );
  const byKey = new Map(loops.map((l) => [`${l.function}:${l.id}`, l]));
  const keep = new Set<TaintLoop>();
  for (const index of chosen) {
    for (
      let at: TaintLoop | undefined = loops[index];
      at && !keep.has(at);
      at = at.parent ? byKey.get(`${at.function}:${at.parent}`) : undefined
    )
      keep.add(at);
  }
  return loops.filter((l) => keep.has(l));
}

export function topFunctions(
  functions: readonly TaintFunction[],
  loops: readonly TaintLoop[],
  count: number,
): TaintFunction[] {
  const iterations = new Map<string, number>();
  for (const l of loops) iterations.set(l.function, (iterations.get(l.function) ?? 0) + l.iterations);
  return topRows(
    functions,
    count,
    (f) => f.params.length > 0,
    (f) => iterations.get(f.name) ?? 0,
  );
}

export function topBranches(
  branches: readonly TaintBranch[],
  loops: readonly TaintLoop[],
  count: number,
): TaintBranch[] {
  const iterations = new Map(loops.map((l) => [`${l.function}:${l.id}`, l.iterations]));
  return topRows(
    branches,
    count,
    (b) => b.params.length > 0,
    (b) => (b.loop ? (iterations.get(`${b.function}:${b.loop}`) ?? 0) : 0),
  );
}

/** `a, b, c … (+12)`: at most `count` names of a list. */
export function topList(names: readonly string[], count: number | undefined): string {
  if (names.length === 0) return '-';
  if (count === undefined || names.length <= count) return names.join(', ');
  return `${names.slice(0, count).join(', ')} … (+${names.length - count})`;
}
