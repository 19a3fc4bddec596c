// Which parameter a pointer held in a local was derived from (its provenance), read backwards from
// a function's flow facts through copies and offsets (`p = this + 16` in an earlier region, where the
// address expression no longer shows `this`; `p = p + 8` stepping it). A store through such a pointer
// writes into memory the parameter points to, so the transfer function maps it onto the caller's
// argument. Only definitions from one local are followed: `base + i * 8` reads an index too, and an
// index is no owner (the flow facts do not say which operand is the pointer). Loads are not data
// flow: a pointer loaded from memory has no provenance, and neither has a call's result. The same
// per-function index answers which locals a function passes as each call argument (the way back
// from a callee's parameter to the caller's variable, asked per sample and frame).
import type { FunctionFacts } from '../../instrument/flow-facts.js';

interface Index {
  /** Per local: the one other local each of its definitions is computed from; null when some definition reads several or a call's result. */
  from: Map<number, number[] | null>;
  /** Per local: the parameters it derives from (memoised). */
  roots: Map<number, readonly number[]>;
  /** Per call and argument (`call * 65536 + arg`): the locals whose value is passed there, in fact order. */
  args: Map<number, number[]>;
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
    const from = index.from.get(l);
    if (from === null) return none(index, local);
    for (const next of from ?? [])
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
  }
  const roots = [...params].sort((a, b) => a - b);
  index.roots.set(local, roots);
  return roots;
}

const NONE: readonly number[] = [];

/**
 * Locals whose value is passed as argument `arg` of call `call` (FunctionRelations.argumentSources,
 * indexed once per function: blame asks it per sample and frame, and a scan of every fact of a
 * large function per question cost nextpnr minutes).
 */
export function argumentLocals(facts: FunctionFacts, call: number, arg: number): readonly number[] {
  return indexOf(facts).args.get(call * 65536 + arg) ?? NONE;
}

function none(index: Index, local: number): readonly number[] {
  index.roots.set(local, NONE);
  return NONE;
}

function indexOf(facts: FunctionFacts): Index {
  let index = indexes.get(facts);
  if (index) return index;
  const from = new Map<number, number[] | null>();
  const args = new Map<number, number[]>();
  for (const fact of facts.facts) {
    if (fact.target.kind === 'arg') {
      const key = fact.target.call * 65536 + fact.target.arg;
      let list = args.get(key);
      if (!list) args.set(key, (list = []));
      for (const source of fact.sources) if (source.startsWith('l')) list.push(Number(source.slice(1)));
    }
    if (fact.target.kind !== 'local') continue;
    const local = fact.target.local;
    const list = from.get(local);
    if (list === null) continue;
    const others = fact.sources.filter((source) => source !== `l${local}`);
    if (others.length > 1 || others.some((source) => !source.startsWith('l'))) from.set(local, null);
    else if (others.length === 1) {
      const next = Number(others[0]!.slice(1));
      if (list) list.push(next);
      else from.set(local, [next]);
    } else if (!list) from.set(local, []);
  }
  index = { from, roots: new Map(), args };
  indexes.set(facts, index);
  return index;
}
