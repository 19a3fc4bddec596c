// What an innermost loop does to memory, as functions of the iteration: a symbolic run over one
// iteration gives each access's address as `base + step·t` (t the iteration, base and step linear
// in the locals' values at loop entry, mod 2^32) and, from the back edge `br_if $loop (x != y)`
// with x − y stepped by ±2^k, the trip count. Used by shadow-loop-labels.ts to decide at loop
// entry which label words the loop can touch.
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Break,
  Const,
  Id,
  If,
  Load,
  LocalGet,
  LocalSet,
  Loop,
  Store,
  branchTargets,
  children,
  idOf,
  runtimeNumber,
  typeOf,
  type Expr,
} from '../ir.js';

export const Op = {
  Add: runtimeNumber('AddInt32'),
  Sub: runtimeNumber('SubInt32'),
  Mul: runtimeNumber('MulInt32'),
  Shl: runtimeNumber('ShlInt32'),
  Ne: runtimeNumber('NeInt32'),
  Or: runtimeNumber('OrInt32'),
};

/** Loops larger than this (expression nodes) are not copied. */
const LOOP_NODE_LIMIT = 4000;

/** A linear form over locals' values at loop entry, mod 2^32: Σ coef·local + c. */
export interface Linear {
  terms: Map<number, number>;
  c: number;
}
/** A value in iteration t: base + step·t. */
export interface Sym {
  base: Linear;
  step: Linear;
}
/** What the evaluation knows of an i32 value: a Sym, the comparison `a != b`, or nothing. */
export type Val = { sym: Sym } | { ne: [Sym, Sym] } | null;

export const lin = (c: number, terms: Map<number, number> = new Map()): Linear => ({ terms, c: c | 0 });
export const constSym = (c: number): Sym => ({ base: lin(c), step: lin(0) });

export function linAdd(a: Linear, b: Linear, sign: 1 | -1): Linear {
  const terms = new Map(a.terms);
  for (const [l, k] of b.terms) {
    const v = (terms.get(l) ?? 0) + sign * k;
    if ((v | 0) === 0) terms.delete(l);
    else terms.set(l, v | 0);
  }
  return lin(a.c + sign * b.c, terms);
}
export function linScale(a: Linear, k: number): Linear {
  const terms = new Map<number, number>();
  for (const [l, v] of a.terms) {
    const s = Math.imul(v, k);
    if (s !== 0) terms.set(l, s);
  }
  return lin(Math.imul(a.c, k), terms);
}
export const isConstLin = (a: Linear) => a.terms.size === 0;
export const linKey = (a: Linear) =>
  [...a.terms]
    .sort((x, y) => x[0] - y[0])
    .map(([l, k]) => `${l}:${k}`)
    .join(',');
export const symAdd = (a: Sym, b: Sym, sign: 1 | -1): Sym => ({
  base: linAdd(a.base, b.base, sign),
  step: linAdd(a.step, b.step, sign),
});
export const symScale = (a: Sym, k: number): Sym => ({ base: linScale(a.base, k), step: linScale(a.step, k) });
export const constOf = (a: Sym): number | null =>
  isConstLin(a.base) && isConstLin(a.step) && a.step.c === 0 ? a.base.c : null;

export interface Access {
  expr: Expr;
  store: boolean;
  /** The memarg offset (unsigned). */
  offset: number;
  bytes: number;
  address: Sym | null;
  /** Outside any `if` arm or nested block: runs every iteration that reaches its statement. */
  always: boolean;
}

export interface LoopFacts {
  accesses: Access[];
  /** The back edge's condition (continue while it holds), null when not understood. */
  backEdge: Val;
}

/** Expression kinds a candidate loop may contain (anything else: calls, bulk memory, atomics, GC…). */
export const ALLOWED = new Set<number>([
  Id.Nop,
  Id.Block,
  Id.If,
  Id.Break,
  Id.Switch,
  Id.LocalGet,
  Id.LocalSet,
  Id.GlobalGet,
  Id.GlobalSet,
  Id.Load,
  Id.Store,
  Id.Const,
  Id.Unary,
  Id.Binary,
  Id.Select,
  Id.Drop,
  Id.Return,
  Id.Unreachable,
  Id.MemorySize,
  Id.SIMDExtract,
  Id.SIMDReplace,
  Id.SIMDShuffle,
  Id.SIMDTernary,
  Id.SIMDShift,
]);

/** An access (or several with the same base and step) as a range of offsets from `base + step·t`. */
export interface PartnerRange {
  base: Linear;
  step: Linear;
  invariant: boolean;
  lo: number;
  hi: number;
}

export function partnerRanges(accesses: Access[], haveTrip: boolean): PartnerRange[] | null {
  const ranges = new Map<string, PartnerRange>();
  for (const a of accesses) {
    if (a.address === null) return null;
    const invariant = isConstLin(a.address.step) && a.address.step.c === 0;
    if (!invariant && !haveTrip) return null;
    const key = `${linKey(a.address.base)}|${a.address.base.c}|${linKey(a.address.step)}|${a.address.step.c}`;
    const r = ranges.get(key);
    if (r) {
      r.lo = Math.min(r.lo, a.offset);
      r.hi = Math.max(r.hi, a.offset + a.bytes);
    } else {
      ranges.set(key, {
        base: a.address.base,
        step: a.address.step,
        invariant,
        lo: a.offset,
        hi: a.offset + a.bytes,
      });
    }
  }
  return [...ranges.values()];
}

export const sameBase = (a: Linear, b: Linear) => a.c === b.c && linKey(a) === linKey(b);

export function withinLimits(root: Expr): boolean {
  const stack = [root];
  let nodes = 0;
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (++nodes > LOOP_NODE_LIMIT) return false;
    const id = idOf(e);
    if (e !== root && !ALLOWED.has(id)) return false;
    if ((id === Id.Load || id === Id.Store) && (id === Id.Load ? Load.isAtomic(e) : Store.isAtomic(e))) return false;
    stack.push(...children(e));
  }
  return true;
}

export interface LoopShape {
  /** Locals assigned in the loop. */
  assigned: Set<number>;
  /** The body's last statement `br_if $loop cond`. */
  backEdge: Expr;
}

/** The loop's body must end in `br_if $loop cond`, its only branch back. */
export function loopShape(loop: Expr, name: string): LoopShape | null {
  const body = Loop.getBody(loop);
  if (idOf(body) !== Id.Block || typeOf(body) !== binaryen.none) return null;
  const count = Block.getNumChildren(body);
  if (count === 0) return null;
  const last = Block.getChildAt(body, count - 1);
  if (idOf(last) !== Id.Break || Break.getName(last) !== name || !Break.getCondition(last) || Break.getValue(last))
    return null;
  // Branches out of the loop only end it early; another branch back would start an iteration
  // without the back edge's step.
  const assigned = new Set<number>();
  const stack = [body];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (idOf(e) === Id.LocalSet) assigned.add(LocalSet.getIndex(e));
    if (e !== last && branchTargets(e).includes(name)) return null;
    stack.push(...children(e));
  }
  return { assigned, backEdge: last };
}

/**
 * Two symbolic runs over one iteration. The first, with every local at its value at the start of
 * the iteration, finds the induction variables (a local whose value at the end is itself plus an
 * amount linear in locals the loop never writes); the second, with those as base + step·t and every
 * other local the loop writes unknown until written, gives each access's address.
 */
export function evaluateLoop(body: Expr, assigned: Set<number>, backEdge: Expr): LoopFacts {
  const atom = (l: number): Linear => lin(0, new Map([[l, 1]]));
  const first = new Evaluator((l) => ({ sym: { base: atom(l), step: lin(0) } }));
  first.runBody(body);
  const steps = new Map<number, Linear>();
  for (const l of assigned) {
    const v = first.env.has(l) ? first.env.get(l)! : null;
    if (v === null || !('sym' in v) || !isConstLin(v.sym.step) || v.sym.step.c !== 0) continue;
    if (v.sym.base.terms.get(l) !== 1) continue;
    const rest = linAdd(v.sym.base, atom(l), -1);
    if ([...rest.terms.keys()].some((k) => assigned.has(k))) continue;
    steps.set(l, rest);
  }
  const second = new Evaluator((l) => {
    if (!assigned.has(l)) return { sym: { base: atom(l), step: lin(0) } };
    const step = steps.get(l);
    return step ? { sym: { base: atom(l), step } } : null;
  });
  second.runBody(body);
  return { accesses: second.accesses, backEdge: second.conditions.get(backEdge) ?? null };
}

export class Evaluator {
  readonly accesses: Access[] = [];
  readonly env = new Map<number, Val>();
  /** Each conditional branch's condition. */
  readonly conditions = new Map<Expr, Val>();
  /** How many `if` arms and nested blocks the walk is inside. */
  private depth = 0;
  constructor(
    /** A local's value before the iteration writes it. */
    private readonly initial: (local: number) => Val,
  ) {}

  runBody(body: Expr): void {
    for (const child of children(body)) this.eval(child);
  }

  private read(local: number): Val {
    return this.env.has(local) ? this.env.get(local)! : this.initial(local);
  }

  private eval(expr: Expr): Val {
    const id = idOf(expr);
    if (id === Id.Const) return typeOf(expr) === binaryen.i32 ? { sym: constSym(Const.getValueI32(expr)) } : null;
    if (id === Id.LocalGet) return typeOf(expr) === binaryen.i32 ? this.read(LocalGet.getIndex(expr)) : null;
    if (id === Id.LocalSet) {
      const v = this.eval(LocalSet.getValue(expr));
      const value = typeOf(LocalSet.getValue(expr)) === binaryen.i32 ? v : null;
      this.env.set(LocalSet.getIndex(expr), value);
      return LocalSet.isTee(expr) ? value : null;
    }
    if (id === Id.Binary) {
      const l = this.eval(Binary.getLeft(expr));
      const r = this.eval(Binary.getRight(expr));
      return binaryValue(Binary.getOp(expr), l, r);
    }
    if (id === Id.Load) {
      const address = this.eval(Load.getPtr(expr));
      this.record(expr, false, Load.getOffset(expr), Load.getBytes(expr), address);
      return null;
    }
    if (id === Id.Store) {
      const address = this.eval(Store.getPtr(expr));
      this.eval(Store.getValue(expr));
      this.record(expr, true, Store.getOffset(expr), Store.getBytes(expr), address);
      return null;
    }
    if (id === Id.If) {
      this.eval(If.getCondition(expr));
      const saved = new Map(this.env);
      this.depth++;
      this.eval(If.getIfTrue(expr));
      const alt = If.getIfFalse(expr);
      if (alt) {
        this.env.clear();
        for (const [k, v] of saved) this.env.set(k, v);
        this.eval(alt);
      }
      this.depth--;
      // Either arm may have run: what they write is unknown afterwards.
      this.forgetWritesIn(expr);
      return null;
    }
    if (id === Id.Break) {
      const value = Break.getValue(expr);
      if (value) this.eval(value);
      const cond = Break.getCondition(expr);
      if (cond) this.conditions.set(expr, this.eval(cond));
      return null;
    }
    if (id === Id.Block) this.depth++;
    for (const child of children(expr)) this.eval(child);
    if (id === Id.Block) this.depth--;
    // A branch out of a named block may skip its later writes.
    if (id === Id.Block && Block.getName(expr)) this.forgetWritesIn(expr);
    return null;
  }

  private forgetWritesIn(root: Expr): void {
    const stack = [root];
    while (stack.length > 0) {
      const e = stack.pop()!;
      if (idOf(e) === Id.LocalSet) this.env.set(LocalSet.getIndex(e), null);
      stack.push(...children(e));
    }
  }

  private record(expr: Expr, store: boolean, offset: number, bytes: number, address: Val): void {
    this.accesses.push({
      expr,
      store,
      offset: offset >>> 0,
      bytes,
      address: address !== null && 'sym' in address ? address.sym : null,
      always: this.depth === 0,
    });
  }
}

export function binaryValue(op: number, l: Val, r: Val): Val {
  if (l === null || r === null || !('sym' in l) || !('sym' in r)) return null;
  if (op === Op.Add) return { sym: symAdd(l.sym, r.sym, 1) };
  if (op === Op.Sub) return { sym: symAdd(l.sym, r.sym, -1) };
  if (op === Op.Ne) return { ne: [l.sym, r.sym] };
  if (op === Op.Mul) {
    const k = constOf(r.sym) ?? constOf(l.sym);
    if (k === null) return null;
    return { sym: symScale(constOf(r.sym) !== null ? l.sym : r.sym, k) };
  }
  if (op === Op.Shl) {
    const k = constOf(r.sym);
    return k === null ? null : { sym: symScale(l.sym, 1 << (k & 31)) };
  }
  return null;
}

/** The loop continues while `d.base + d.step·t ≠ 0`; d.step must be ±2^k. */
export interface Trip {
  difference: Linear;
  /** +1 or −1. */
  sign: 1 | -1;
  shift: number;
}

export function tripCount(backEdge: Val): Trip | null {
  if (backEdge === null) return null;
  const d = 'ne' in backEdge ? symAdd(backEdge.ne[0], backEdge.ne[1], -1) : backEdge.sym;
  if (!isConstLin(d.step) || d.step.c === 0) return null;
  const e = d.step.c;
  const magnitude = Math.abs(e);
  if (e === -(2 ** 31) || (magnitude & (magnitude - 1)) !== 0) return null;
  return { difference: d.base, sign: e > 0 ? 1 : -1, shift: Math.log2(magnitude) };
}

/** Visits every node, operands before the operation (a join after the loads it joins). */
export function walkTree(root: Expr, visit: (expr: Expr) => void): void {
  for (const child of children(root)) walkTree(child, visit);
  visit(root);
}
