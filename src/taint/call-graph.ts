// The call graph the taint report reasons over: direct calls and indirect calls to the candidates
// that ran, call paths from the entry (breadth-first, so each is a shortest path) and the
// functions on a call cycle.
import type { CallSite } from '../../instrument/sites.js';

/** Callees of a call site: its direct target, or the indirect candidates `indirect` keeps. */
export function callTargets(call: CallSite, indirect: (call: CallSite) => string[] | null): string[] {
  return call.kind === 'direct' && call.target ? [call.target] : call.kind === 'indirect' ? (indirect(call) ?? []) : [];
}

/** Caller → callees over all call sites. */
export function calleesOf(calls: CallSite[], indirect: (call: CallSite) => string[] | null): Map<string, Set<string>> {
  const callees = new Map<string, Set<string>>();
  for (const call of calls) {
    const targets = callTargets(call, indirect);
    if (targets.length === 0) continue;
    if (!callees.has(call.function)) callees.set(call.function, new Set());
    for (const t of targets) callees.get(call.function)!.add(t);
  }
  return callees;
}

/** Members of a call cycle (or self-calling functions). */
export function findRecursive(names: string[], callees: Map<string, Set<string>>): string[] {
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

/** A call path from the entry to every function reachable from it. */
export function callPaths(entry: string | null, callees: Map<string, Set<string>>): Map<string, string[]> {
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
