// How many times a loop exit condition's bound multiplies one value by itself (issue 24, cause 7).
// A flattened grid loop `for (i = 0; i < n*n*n; i++)` runs n³ times, but its exit condition carries
// n once: the labels say which parameters, not how often. Read off the flat IR of the condition: a
// comparison (under clang -O0's `& 1` and `eqz`) whose one side is a product in which every factor
// is the same value raised to the same power k (n*n*n: k = 3; (n*m)*(n*m): k = 2); a factor is a
// local with no single definition, a stack-frame slot (the same slot read twice is one value) or
// an opaque expression; widening and an unrolled loop's rounding (`x & -4`) keep the power. The decoder raises the exit's parameters to k (src/taint/dependency.ts).
import binaryen from 'binaryen';
import {
  Binary,
  Const,
  Func,
  Id,
  Load,
  LocalGet,
  LocalSet,
  Unary,
  childSlots,
  idOf,
  runtimeNumber,
  type Expr,
} from '../ir.js';
import type { FunctionTaint } from './taint-function.js';

const definitions = new WeakMap<FunctionTaint, Map<number, Expr[]>>();

function definitionsOf(c: FunctionTaint): Map<number, Expr[]> {
  let defs = definitions.get(c);
  if (defs) return defs;
  defs = new Map();
  const visit = (e: Expr) => {
    if (idOf(e) === Id.LocalSet) {
      const list = defs!.get(LocalSet.getIndex(e)) ?? [];
      list.push(LocalSet.getValue(e));
      defs!.set(LocalSet.getIndex(e), list);
    }
    for (const slot of childSlots(e)) visit(slot.expr);
  };
  const body = Func.getBody(c.func);
  if (body) visit(body);
  definitions.set(c, defs);
  return defs;
}

const COMPARISONS = new Set(
  [
    'LtSInt32',
    'LtUInt32',
    'LeSInt32',
    'LeUInt32',
    'GtSInt32',
    'GtUInt32',
    'GeSInt32',
    'GeUInt32',
    'EqInt32',
    'NeInt32',
    'LtSInt64',
    'LtUInt64',
    'LeSInt64',
    'LeUInt64',
    'GtSInt64',
    'GtUInt64',
    'GeSInt64',
    'GeUInt64',
    'EqInt64',
    'NeInt64',
  ].map(runtimeNumber),
);
const MULTIPLY = new Set([binaryen.MulInt32, binaryen.MulInt64]);
const WIDEN = new Set([binaryen.ExtendSInt32, binaryen.ExtendUInt32, binaryen.WrapInt64]);
const DEPTH = 16;
/**
 * Expressions one condition's reading may visit: a local with several definitions is read through
 * each, so flat IR's chains of such locals branch at every step. Past the budget a factor is opaque
 * (power 1, as without this analysis); measured: 1.0 of 3.7 s of taint instrumentation at -O0 without it.
 */
const BUDGET = 512;

/** The power k of the exit condition's bound (1: not a power of one value). */
export function exitPower(c: FunctionTaint, condition: Expr): number {
  const defs = definitionsOf(c);
  let opaque = 0;
  /** Follows a local to its only definition. */
  const through = (e: Expr, depth: number): Expr => {
    let cur = e;
    for (let d = depth; d < DEPTH && idOf(cur) === Id.LocalGet; d++) {
      const list = defs.get(LocalGet.getIndex(cur));
      if (!list || list.length !== 1) break;
      cur = list[0]!;
    }
    return cur;
  };
  /** The local a chain of copies starts from (flattening copies the frame pointer into temporaries). */
  const copied = (index: number): number => {
    let cur = index;
    for (let d = 0; d < DEPTH; d++) {
      const list = defs.get(cur);
      if (!list || list.length !== 1 || idOf(list[0]!) !== Id.LocalGet) break;
      cur = LocalGet.getIndex(list[0]!);
    }
    return cur;
  };
  type Factors = Map<string, number>;
  const same = (a: Factors, b: Factors) => a.size === b.size && [...a].every(([key, k]) => b.get(key) === k);
  /** The factors of a product; null: the local being resolved (a definition in terms of itself). */
  let budget = BUDGET;
  const factors = (e: Expr, depth: number, resolving: Set<number>): Factors | null => {
    if (--budget < 0) return new Map([[`opaque ${opaque++}`, 1]]);
    const id = idOf(e);
    if (id === Id.LocalGet) {
      const index = LocalGet.getIndex(e);
      if (resolving.has(index)) return null;
      const list = defs.get(index);
      if (!list || depth >= DEPTH) return new Map([[`local ${index}`, 1]]);
      // Every definition (but those in terms of the local itself) the same product: that product.
      const shapes = list
        .map((def) => factors(def, depth + 1, new Set([...resolving, index])))
        .filter((f): f is Factors => f !== null);
      const first = shapes[0];
      if (!first) return null; // defined only in terms of a local being resolved
      return shapes.every((f) => same(f, first)) ? first : new Map([[`local ${index}`, 1]]);
    }
    if (depth < DEPTH && id === Id.Binary && MULTIPLY.has(Binary.getOp(e))) {
      const left = factors(Binary.getLeft(e), depth + 1, resolving);
      const right = factors(Binary.getRight(e), depth + 1, resolving);
      if (!left || !right) return new Map([[`opaque ${opaque++}`, 1]]);
      const out = new Map(left);
      for (const [key, k] of right) out.set(key, (out.get(key) ?? 0) + k);
      return out;
    }
    if (depth < DEPTH && id === Id.Unary && WIDEN.has(Unary.getOp(e)))
      return factors(Unary.getValue(e), depth + 1, resolving);
    // An unrolled loop's bound rounded down to its unroll factor (`x & -4`) grows as x does.
    if (depth < DEPTH && id === Id.Binary && Binary.getOp(e) === binaryen.AndInt32) {
      const mask = through(Binary.getRight(e), depth);
      if (idOf(mask) === Id.Const && Const.getValueI32(mask) < 0)
        return factors(Binary.getLeft(e), depth + 1, resolving);
    }
    if (id === Id.Const) return new Map();
    if (id === Id.Load) {
      const ptr = Load.getPtr(e);
      if (idOf(ptr) === Id.LocalGet && c.frame.pointers.has(LocalGet.getIndex(ptr)))
        return new Map([[`slot ${copied(LocalGet.getIndex(ptr))}:${Load.getOffset(e)}:${Load.getBytes(e)}`, 1]]);
    }
    return new Map([[`opaque ${opaque++}`, 1]]);
  };
  const uniform = (side: Expr): number => {
    const powers = [...(factors(side, 0, new Set()) ?? new Map<string, number>()).values()];
    return powers.length > 0 && powers.every((k) => k === powers[0]) ? powers[0]! : 1;
  };
  // Peel `eqz` and `& 1` down to the comparison.
  let e = through(condition, 0);
  for (let d = 0; d < DEPTH; d++) {
    if (idOf(e) === Id.Unary && (Unary.getOp(e) === binaryen.EqZInt32 || Unary.getOp(e) === binaryen.EqZInt64))
      e = through(Unary.getValue(e), d);
    else if (idOf(e) === Id.Binary && Binary.getOp(e) === binaryen.AndInt32 && isOne(through(Binary.getRight(e), d)))
      e = through(Binary.getLeft(e), d);
    else break;
  }
  if (idOf(e) !== Id.Binary || !COMPARISONS.has(Binary.getOp(e))) return 1;
  return Math.max(uniform(Binary.getLeft(e)), uniform(Binary.getRight(e)));
}

const isOne = (e: Expr) => idOf(e) === Id.Const && Const.getValueI32(e) === 1;
