// Which parameters a pointer held in a local was derived from (its provenance), read backwards from
// a function's flow facts: through the locals it was computed from (`p = this + 16` in an earlier
// region, where the address expression no longer shows `this`) and through call results, which the
// analysis assumes come from the call's arguments (`slot = at(vec, i)` points into `vec`). A store
// through such a pointer writes into memory a parameter points to, so the transfer function maps it
// onto the caller's argument. Loads are not data flow: a pointer loaded from memory has no provenance.
import type { FunctionFacts } from '../../instrument/flow-facts.js';

interface Index {
  /** Per local: the locals it is computed from (a call result stands for the call's argument locals). */
  from: Map<number, number[]>;
  /** Per local: the parameters it derives from (memoised). */
  roots: Map<number, readonly number[]>;
}

const indexes = new WeakMap<FunctionFacts, Index>();

/** The parameters local `local` of a function derives from, in parameter order; [] when none. */
export function pointerParams(facts: FunctionFacts, local: number): readonly number[] {
  if (local < facts.params) return [local];
  const index = indexOf(facts);
  const known = index.roots.get(local);
  if (known) return known;
  const params = new Set<number>();
  const seen = new Set<number>([local]);
  const queue = [local];
  while (queue.length > 0) {
    const l = queue.pop()!;
    if (l < facts.params) {
      params.add(l);
      continue;
    }
    // A stack-pointer local points into the function's own frame, not into a parameter's object.
    if (facts.stackLocals.includes(l)) continue;
    for (const next of index.from.get(l) ?? [])
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
  }
  const roots = [...params].sort((a, b) => a - b);
  index.roots.set(local, roots);
  return roots;
}

function indexOf(facts: FunctionFacts): Index {
  let index = indexes.get(facts);
  if (index) return index;
  const argLocals = new Map<number, number[]>();
  for (const fact of facts.facts) {
    if (fact.target.kind !== 'arg') continue;
    let list = argLocals.get(fact.target.call);
    if (!list) argLocals.set(fact.target.call, (list = []));
    for (const source of fact.sources) if (source.startsWith('l')) list.push(Number(source.slice(1)));
  }
  const from = new Map<number, number[]>();
  for (const fact of facts.facts) {
    if (fact.target.kind !== 'local') continue;
    let list = from.get(fact.target.local);
    if (!list) from.set(fact.target.local, (list = []));
    for (const source of fact.sources) {
      if (source.startsWith('l')) list.push(Number(source.slice(1)));
      else if (source.startsWith('c')) list.push(...(argLocals.get(Number(source.slice(1))) ?? []));
    }
  }
  index = { from, roots: new Map() };
  indexes.set(facts, index);
  return index;
}
