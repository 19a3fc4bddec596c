// Loop-invariant label accesses behind an alias check at loop entry (word shadow, after the
// function's optimizer).
//
// In an innermost loop a label whose address does not change is still read every iteration when
// the loop also stores labels elsewhere (gemm's `A[i][k]`: its label is reloaded after every store
// of `C[i][j]`'s, which might be the same word), and an invariant address's label is written every
// iteration although only the last write can be seen (trmm's `B[i][j] += …` over k). When the
// loop's other label accesses provably miss those words for the whole trip, neither is needed: the
// label is read once before the loop and kept in a local, and the label store becomes a write of a
// local, stored once after the loop. Whether they miss depends on run-time values, so the loop is
// versioned:
//
//   if (<every other access's range over the trip is disjoint from the invariant words>)
//     { T = load(P); <copy of the loop: those loads read T, those stores set V>; store(P, V) }
//   else <the loop as it was>
//
// The ranges come from a symbolic evaluation of one iteration: an address is `base + step·t`
// (t the iteration, base and step linear in the locals' values at entry, mod 2^32), and the trip
// count from the back edge, `br_if $loop (x != y)` with x − y stepped by ±2^k per iteration. Every
// range is computed in i64 and must lie in [0, 2^32) over the whole trip, so the u32 addresses the
// engine forms are exactly the linear ones (no wrap-around). The invariant words must lie below the
// program (`P + end ≤ programBase`), so a program access, whose static offset is at least
// programBase, never touches them, and the hoisted load cannot trap (memory is programBase plus the
// program's size). A loop with a call, a bulk memory operation or an atomic access is left alone.
// Sunk stores additionally need a loop that is left only by falling out of its end and a store in
// the body's top-level sequence (it runs every iteration); a trap inside the loop then leaves the
// last label write undone, which nothing observes (a trap ends the run).
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Break,
  Const,
  Func,
  Id,
  If,
  Load,
  LocalGet,
  LocalSet,
  Loop,
  Store,
  addVar,
  branchTargets,
  childSlots,
  children,
  i64Const,
  idOf,
  labelOf,
  runtimeNumber,
  typeOf,
  type Expr,
} from '../ir.js';
import { collectInnermostLoops, renameLabels } from './shadow-versioning.js';

const Op = {
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
interface Linear {
  terms: Map<number, number>;
  c: number;
}
/** A value in iteration t: base + step·t. */
interface Sym {
  base: Linear;
  step: Linear;
}
/** What the evaluation knows of an i32 value: a Sym, the comparison `a != b`, or nothing. */
type Val = { sym: Sym } | { ne: [Sym, Sym] } | null;

const lin = (c: number, terms: Map<number, number> = new Map()): Linear => ({ terms, c: c | 0 });
const constSym = (c: number): Sym => ({ base: lin(c), step: lin(0) });

function linAdd(a: Linear, b: Linear, sign: 1 | -1): Linear {
  const terms = new Map(a.terms);
  for (const [l, k] of b.terms) {
    const v = (terms.get(l) ?? 0) + sign * k;
    if ((v | 0) === 0) terms.delete(l);
    else terms.set(l, v | 0);
  }
  return lin(a.c + sign * b.c, terms);
}
function linScale(a: Linear, k: number): Linear {
  const terms = new Map<number, number>();
  for (const [l, v] of a.terms) {
    const s = Math.imul(v, k);
    if (s !== 0) terms.set(l, s);
  }
  return lin(Math.imul(a.c, k), terms);
}
const isConstLin = (a: Linear) => a.terms.size === 0;
const linKey = (a: Linear) =>
  [...a.terms]
    .sort((x, y) => x[0] - y[0])
    .map(([l, k]) => `${l}:${k}`)
    .join(',');
const symAdd = (a: Sym, b: Sym, sign: 1 | -1): Sym => ({
  base: linAdd(a.base, b.base, sign),
  step: linAdd(a.step, b.step, sign),
});
const symScale = (a: Sym, k: number): Sym => ({ base: linScale(a.base, k), step: linScale(a.step, k) });
const constOf = (a: Sym): number | null =>
  isConstLin(a.base) && isConstLin(a.step) && a.step.c === 0 ? a.base.c : null;

interface Access {
  expr: Expr;
  store: boolean;
  /** The memarg offset (unsigned). */
  offset: number;
  bytes: number;
  address: Sym | null;
  /** A direct child of the loop body's top-level sequence. */
  topLevel: boolean;
  /** Outside any `if` arm or nested block: runs every iteration that reaches its statement. */
  always: boolean;
}

interface LoopFacts {
  accesses: Access[];
  /** The back edge's condition (continue while it holds), null when not understood. */
  backEdge: Val;
}

/** Expression kinds a candidate loop may contain (anything else: calls, bulk memory, atomics, GC…). */
const ALLOWED = new Set<number>([
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

export interface LabelRegion {
  /** Lowest memarg offset of a label access (the label of program address 0). */
  labels: number;
  /** Where program address 0 sits: program accesses have static offsets at least this. */
  programBase: number;
}

/** Versions the innermost loops of `func` with invariant label accesses; returns how many. */
export function hoistLoopLabels(module: binaryen.Module, func: number, region: LabelRegion): number {
  const loops: Array<{ loop: Expr; replace: (e: Expr) => void }> = [];
  collectInnermostLoops(Func.getBody(func), (loop, replace) => loops.push({ loop, replace }));
  let done = 0;
  for (const { loop, replace } of loops) {
    const versioned = versionLoop(module, func, loop, region);
    if (versioned === null) continue;
    replace(versioned);
    done++;
  }
  return done;
}

function versionLoop(module: binaryen.Module, func: number, loop: Expr, region: LabelRegion): Expr | null {
  const name = Loop.getName(loop);
  const body = Loop.getBody(loop);
  if (!name || typeOf(loop) !== binaryen.none || !withinLimits(loop)) return null;
  const shape = loopShape(loop, name);
  if (shape === null) return null;
  const facts = evaluateLoop(body, shape.assigned, shape.backEdge);
  const isLabel = (a: Access) => a.offset >= region.labels && a.offset < region.programBase;
  // Accesses below the program: the ones an invariant label word must be disjoint from.
  const low = facts.accesses.filter((a) => a.offset < region.programBase);
  const invariant = (a: Access) => a.address !== null && isConstLin(a.address.step) && a.address.step.c === 0;
  const hoistable = (a: Access) => !a.store && isLabel(a) && invariant(a) && simpleType(a) && !Load.isAtomic(a.expr);
  const sinkable = (a: Access) =>
    a.store &&
    shape.exitsOnlyAtEnd &&
    a.topLevel &&
    isLabel(a) &&
    invariant(a) &&
    simpleType(a) &&
    !Store.isAtomic(a.expr) &&
    pureAddress(Store.getPtr(a.expr));
  const trip = tripCount(facts.backEdge);

  // Candidates grouped by their address's base: one entry check per group and partner.
  const groups = new Map<string, Group>();
  for (const a of facts.accesses) {
    const kind = hoistable(a) ? 'load' : sinkable(a) ? 'store' : null;
    if (kind === null) continue;
    const key = `${linKey(a.address!.base)}|${a.address!.base.c}`;
    let g = groups.get(key);
    if (!g) {
      g = { base: a.address!.base, members: [], lo: Infinity, hi: -Infinity, drop: false };
      groups.set(key, g);
    }
    g.members.push(a);
  }
  for (const g of groups.values()) {
    for (const a of g.members) {
      g.lo = Math.min(g.lo, a.offset);
      g.hi = Math.max(g.hi, a.offset + a.bytes);
    }
    // Sunk stores must all write the same words (the last one's value is what is left); a group
    // that both reads and writes its words keeps them changing inside the loop.
    const stores = g.members.filter((a) => a.store);
    if (stores.length > 0 && (stores.length < g.members.length || !sameWords(stores))) g.drop = true;
  }
  // A group's loads must miss every other store below the program, its stores every other access.
  const partnersOf = (g: Group) => {
    const writes = g.members.some((m) => m.store);
    return low.filter((a) => !g.members.includes(a) && (a.store || writes));
  };
  const checks: Array<{ group: Group; partners: PartnerRange[] }> = [];
  for (const g of groups.values()) {
    if (g.drop) continue;
    const partners = partnerRanges(partnersOf(g), trip !== null);
    if (partners === null) continue;
    // A partner at the same base overlapping the group's words: the check would always fail.
    if (partners.some((p) => p.invariant && sameBase(p.base, g.base) && p.lo < g.hi && g.lo < p.hi)) continue;
    checks.push({ group: g, partners });
  }
  const windows = trip === null ? [] : findWindows(loop, facts.accesses, isLabel, low);
  if (checks.length === 0 && windows.length === 0) return null;
  return emitVersion(module, func, loop, checks, windows, trip, region);
}

/** A label read at `base + step·t` (one word, or an 8-byte label's two words joined). */
interface Unit {
  /** The load, or the `or` of the two word loads. */
  expr: Expr;
  /** The address operand's value at t = 0. */
  base: Linear;
  /** Memarg offsets of its word loads. */
  offsets: number[];
}

/**
 * Labels read at the same moving address plus different constants, one step apart: the unit at
 * e reads in iteration t + 1 what the unit at e + step read in iteration t, when nothing in the
 * loop writes them.
 */
interface Window {
  /** The address without its constant: `base + step·t`, units at base + e. */
  base: Linear;
  step: number;
  /** e (the address's constant plus the memarg offset) → its unit. */
  units: Map<number, Unit>;
  lo: number;
  hi: number;
  /** The largest constant the units' addresses add to `base` (their sums must not wrap). */
  spread: number;
}

/** Windows of label loads whose values an earlier iteration already read (stencils: A[j−1], A[j], A[j+1]). */
function findWindows(
  loop: Expr,
  accesses: Access[],
  isLabel: (a: Access) => boolean,
  low: Access[],
): Array<{ window: Window; partners: PartnerRange[] }> {
  const byExpr = new Map<Expr, Access>();
  for (const a of accesses) {
    if (a.store || !isLabel(a) || a.bytes !== 4 || typeOf(a.expr) !== binaryen.i32 || Load.isAtomic(a.expr)) continue;
    if (a.address === null || !isConstLin(a.address.step) || a.address.step.c === 0) continue;
    byExpr.set(a.expr, a);
  }
  const units: Array<{ unit: Unit; access: Access; width: number; always: boolean }> = [];
  const inUnit = new Set<Expr>();
  walkTree(loop, (e) => {
    if (idOf(e) !== Id.Binary || Binary.getOp(e) !== Op.Or) return;
    const l = byExpr.get(Binary.getLeft(e));
    const r = byExpr.get(Binary.getRight(e));
    if (!l || !r || inUnit.has(l.expr) || inUnit.has(r.expr)) return;
    if (!sameBase(l.address!.base, r.address!.base) || l.address!.step.c !== r.address!.step.c) return;
    if (r.offset !== l.offset + 4) return;
    inUnit.add(l.expr);
    inUnit.add(r.expr);
    units.push({
      unit: { expr: e, base: l.address!.base, offsets: [l.offset, r.offset] },
      access: l,
      width: 8,
      always: l.always && r.always,
    });
  });
  for (const a of byExpr.values()) {
    if (inUnit.has(a.expr)) continue;
    units.push({
      unit: { expr: a.expr, base: a.address!.base, offsets: [a.offset] },
      access: a,
      width: 4,
      always: a.always,
    });
  }
  const windows = new Map<string, { window: Window; always: Map<number, boolean>; duplicate: boolean }>();
  for (const { unit, access, width, always } of units) {
    const step = access.address!.step.c;
    const key = `${linKey(unit.base)}|${step}|${width}`;
    let w = windows.get(key);
    if (!w) {
      const base = lin(0, unit.base.terms);
      w = {
        window: { base, step, units: new Map(), lo: Infinity, hi: -Infinity, spread: 0 },
        always: new Map(),
        duplicate: false,
      };
      windows.set(key, w);
    }
    const e = unit.base.c + unit.offsets[0]!;
    if (w.window.units.has(e)) w.duplicate = true;
    w.window.units.set(e, unit);
    w.always.set(e, always);
  }
  const found: Array<{ window: Window; partners: PartnerRange[] }> = [];
  for (const { window: w, always, duplicate } of windows.values()) {
    if (duplicate) continue;
    const width = (e: number) => w.units.get(e)!.offsets.length * 4;
    // A unit another one reads one step later must run every iteration (its value is carried).
    const carried = [...w.units.keys()].filter((e) => w.units.has(e - w.step));
    const replaced = [...w.units.keys()].filter((e) => w.units.has(e + w.step));
    if (replaced.length === 0 || carried.some((e) => !always.get(e))) continue;
    // The address constants: the smallest becomes part of the base, the rest the spread.
    const constants = [...w.units.values()].map((u) => u.base.c);
    const least = Math.min(...constants);
    w.base = lin(least, w.base.terms);
    w.spread = Math.max(...constants) - least;
    for (const e of w.units.keys()) {
      w.lo = Math.min(w.lo, e - least);
      w.hi = Math.max(w.hi, e - least + width(e));
    }
    const partners = partnerRanges(
      low.filter((a) => a.store),
      true,
    );
    if (partners === null) continue;
    found.push({ window: w, partners });
  }
  return found;
}

interface Group {
  base: Linear;
  members: Access[];
  /** The memarg offsets the group's accesses cover: [lo, hi). */
  lo: number;
  hi: number;
  drop: boolean;
}

/** An access (or several with the same base and step) as a range of offsets from `base + step·t`. */
interface PartnerRange {
  base: Linear;
  step: Linear;
  invariant: boolean;
  lo: number;
  hi: number;
}

function partnerRanges(accesses: Access[], haveTrip: boolean): PartnerRange[] | null {
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

const sameBase = (a: Linear, b: Linear) => a.c === b.c && linKey(a) === linKey(b);

/** Stores all of the same words and width (sunk together: the last one's value is the one left). */
function sameWords(stores: Access[]): boolean {
  return stores.every(
    (s) =>
      s.offset === stores[0]!.offset &&
      s.bytes === stores[0]!.bytes &&
      typeOf(Store.getValue(s.expr)) === typeOf(Store.getValue(stores[0]!.expr)),
  );
}

function simpleType(a: Access): boolean {
  const type = a.store ? typeOf(Store.getValue(a.expr)) : typeOf(a.expr);
  return (type === binaryen.i32 && a.bytes === 4) || (type === binaryen.i64 && a.bytes === 8);
}

/** Reads and arithmetic that cannot trap: dropping it changes nothing. */
function pureAddress(ptr: Expr): boolean {
  const stack = [ptr];
  while (stack.length > 0) {
    const e = stack.pop()!;
    const id = idOf(e);
    if (id === Id.Binary && ![Op.Add, Op.Sub, Op.Mul, Op.Shl].includes(Binary.getOp(e))) return false;
    if (id !== Id.LocalGet && id !== Id.Const && id !== Id.Binary) return false;
    stack.push(...children(e));
  }
  return true;
}

function withinLimits(root: Expr): boolean {
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

interface LoopShape {
  /** Locals assigned in the loop. */
  assigned: Set<number>;
  /** The body's last statement `br_if $loop cond` (null: the loop has another shape). */
  backEdge: Expr;
  /** No branch leaves the loop and nothing returns: it ends by falling out after the back edge. */
  exitsOnlyAtEnd: boolean;
}

/** The loop's body must end in `br_if $loop cond`, its only branch back. */
function loopShape(loop: Expr, name: string): LoopShape | null {
  const body = Loop.getBody(loop);
  if (idOf(body) !== Id.Block || typeOf(body) !== binaryen.none) return null;
  const count = Block.getNumChildren(body);
  if (count === 0) return null;
  const last = Block.getChildAt(body, count - 1);
  if (idOf(last) !== Id.Break || Break.getName(last) !== name || !Break.getCondition(last) || Break.getValue(last))
    return null;
  const assigned = new Set<number>();
  // A branch to the body block itself ends the iteration without the back edge: an exit.
  const defined = new Set<string>();
  let exitsOnlyAtEnd = true;
  let ok = true;
  const stack = [body];
  while (stack.length > 0) {
    const e = stack.pop()!;
    const id = idOf(e);
    if (id === Id.LocalSet) assigned.add(LocalSet.getIndex(e));
    const label = labelOf(e);
    if (label && e !== body) defined.add(label);
    if (id === Id.Return) exitsOnlyAtEnd = false;
    stack.push(...children(e));
  }
  const stack2 = [body];
  while (stack2.length > 0) {
    const e = stack2.pop()!;
    for (const target of branchTargets(e)) {
      if (target === name && e !== last) ok = false;
      else if (target !== name && !defined.has(target)) exitsOnlyAtEnd = false;
    }
    stack2.push(...children(e));
  }
  return ok ? { assigned, backEdge: last, exitsOnlyAtEnd } : null;
}

/**
 * Two symbolic runs over one iteration. The first, with every local at its value at the start of
 * the iteration, finds the induction variables (a local whose value at the end is itself plus an
 * amount linear in locals the loop never writes); the second, with those as base + step·t and every
 * other local the loop writes unknown until written, gives each access's address.
 */
function evaluateLoop(body: Expr, assigned: Set<number>, backEdge: Expr): LoopFacts {
  const atom = (l: number): Linear => lin(0, new Map([[l, 1]]));
  const first = new Evaluator((l) => ({ sym: { base: atom(l), step: lin(0) } }), new Set());
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
  const second = new Evaluator(
    (l) => {
      if (!assigned.has(l)) return { sym: { base: atom(l), step: lin(0) } };
      const step = steps.get(l);
      return step ? { sym: { base: atom(l), step } } : null;
    },
    new Set(children(body)),
  );
  second.runBody(body);
  return { accesses: second.accesses, backEdge: second.conditions.get(backEdge) ?? null };
}

class Evaluator {
  readonly accesses: Access[] = [];
  readonly env = new Map<number, Val>();
  /** Each conditional branch's condition. */
  readonly conditions = new Map<Expr, Val>();
  /** How many `if` arms and nested blocks the walk is inside. */
  private depth = 0;
  constructor(
    /** A local's value before the iteration writes it. */
    private readonly initial: (local: number) => Val,
    private readonly topLevel: Set<Expr>,
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
      topLevel: this.topLevel.has(expr),
      always: this.depth === 0,
    });
  }
}

function binaryValue(op: number, l: Val, r: Val): Val {
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
interface Trip {
  difference: Linear;
  /** +1 or −1. */
  sign: 1 | -1;
  shift: number;
}

function tripCount(backEdge: Val): Trip | null {
  if (backEdge === null) return null;
  const d = 'ne' in backEdge ? symAdd(backEdge.ne[0], backEdge.ne[1], -1) : backEdge.sym;
  if (!isConstLin(d.step) || d.step.c === 0) return null;
  const e = d.step.c;
  const magnitude = Math.abs(e);
  if (e === -(2 ** 31) || (magnitude & (magnitude - 1)) !== 0) return null;
  return { difference: d.base, sign: e > 0 ? 1 : -1, shift: Math.log2(magnitude) };
}

// ---------------------------------------------------------------------------------------------
// Code

function emitVersion(
  module: binaryen.Module,
  func: number,
  loop: Expr,
  checks: Array<{ group: Group; partners: PartnerRange[] }>,
  windows: Array<{ window: Window; partners: PartnerRange[] }>,
  trip: Trip | null,
  region: LabelRegion,
): Expr {
  const i32 = binaryen.i32;
  const i64 = binaryen.i64;
  const pre: Expr[] = [];
  const conditions: Expr[] = [];
  const emitLinear = (a: Linear): Expr => {
    let acc: Expr | null = null;
    for (const [l, k] of [...a.terms].sort((x, y) => x[0] - y[0])) {
      const get = module.local.get(l, i32);
      const term = k === 1 ? get : module.i32.mul(get, module.i32.const(k));
      acc = acc === null ? term : module.i32.add(acc, term);
    }
    if (acc === null) return module.i32.const(a.c);
    return a.c === 0 ? acc : module.i32.add(acc, module.i32.const(a.c));
  };
  const u64 = (e: Expr) => module.i64.extend_u(e);
  const c64 = (v: number) => i64Const(module, BigInt(v));
  const get64 = (l: number) => module.local.get(l, i64);

  // t of the last iteration: the first t ≥ 0 with d + step·t ≡ 0 (mod 2^32).
  let last: number | null = null;
  if (trip !== null) {
    const rest = addVar(func, i32);
    const d = emitLinear(trip.difference);
    pre.push(module.local.set(rest, trip.sign > 0 ? module.i32.sub(module.i32.const(0), d) : d));
    if (trip.shift > 0)
      conditions.push(
        module.i32.eqz(module.i32.and(module.local.get(rest, i32), module.i32.const(2 ** trip.shift - 1))),
      );
    last = addVar(func, i64);
    pre.push(module.local.set(last, module.i64.shr_u(u64(module.local.get(rest, i32)), c64(trip.shift))));
  }

  /** The range `r` covers over the whole trip, as i64 expressions (computed once, before the check). */
  const hull = (r: PartnerRange, spread = 0): { lo: () => Expr; hi: () => Expr } => {
    const q0 = addVar(func, i64);
    pre.push(module.local.set(q0, u64(emitLinear(r.base))));
    if (r.invariant) {
      return { lo: () => module.i64.add(get64(q0), c64(r.lo)), hi: () => module.i64.add(get64(q0), c64(r.hi)) };
    }
    const qLast = addVar(func, i64);
    pre.push(
      module.local.set(
        qLast,
        module.i64.add(get64(q0), module.i64.mul(module.i64.extend_s(emitLinear(r.step)), get64(last!))),
      ),
    );
    // The linear addresses (plus a window's spread of constants) stay in [0, 2^32): the engine's
    // u32 addresses are the same.
    const ascending = () => module.i64.le_s(get64(q0), get64(qLast));
    const low = () => module.select(ascending(), get64(q0), get64(qLast));
    const high = () => module.select(ascending(), get64(qLast), get64(q0));
    conditions.push(module.i64.le_u(module.i64.add(high(), c64(spread)), c64(0xffffffff)));
    return { lo: () => module.i64.add(low(), c64(r.lo)), hi: () => module.i64.add(high(), c64(r.hi)) };
  };

  const hoisted = new Map<Expr, number>();
  const captured = new Map<Expr, number>();
  const rotation: Expr[] = [];
  const hoistLoads: Expr[] = [];
  const loadedWords = new Map<string, number>();
  const sunk: Array<{ access: Access; value: number; address: number }> = [];
  for (const { group, partners } of checks) {
    const p = addVar(func, i64);
    const address = addVar(func, i32);
    pre.push(module.local.set(address, emitLinear(group.base)));
    pre.push(module.local.set(p, u64(module.local.get(address, i32))));
    const start = () => module.i64.add(get64(p), c64(group.lo));
    const end = () => module.i64.add(get64(p), c64(group.hi));
    conditions.push(module.i64.le_u(end(), c64(region.programBase)));
    for (const r of partners) {
      const h = hull(r);
      conditions.push(module.i32.or(module.i64.le_s(h.hi(), start()), module.i64.le_s(end(), h.lo())));
    }
    for (const a of group.members) {
      if (a.store) {
        let value = sunk.find((s) => s.address === address)?.value;
        if (value === undefined) value = addVar(func, typeOf(Store.getValue(a.expr)));
        sunk.push({ access: a, value, address });
      } else {
        const key = `${address}/${a.offset}/${a.bytes}`;
        let t = loadedWords.get(key);
        if (t === undefined) {
          t = addVar(func, typeOf(a.expr));
          loadedWords.set(key, t);
          const at = module.local.get(address, i32);
          hoistLoads.push(
            module.local.set(t, a.bytes === 8 ? module.i64.load(a.offset, 4, at) : module.i32.load(a.offset, 4, at)),
          );
        }
        hoisted.set(a.expr, t);
      }
    }
  }
  // An 8-byte label is two word loads joined: the join moves out too.
  walkTree(loop, (e) => {
    if (idOf(e) !== Id.Binary || Binary.getOp(e) !== Op.Or) return;
    const l = hoisted.get(Binary.getLeft(e));
    const r = hoisted.get(Binary.getRight(e));
    if (l === undefined || r === undefined) return;
    const joined = addVar(func, i32);
    hoistLoads.push(module.local.set(joined, module.i32.or(module.local.get(l, i32), module.local.get(r, i32))));
    hoisted.set(e, joined);
  });

  for (const { window: w, partners } of windows) {
    const h = hull({ base: w.base, step: lin(w.step), invariant: false, lo: w.lo, hi: w.hi }, w.spread);
    conditions.push(module.i64.le_s(h.hi(), c64(region.programBase)));
    for (const r of partners) {
      const p = hull(r);
      conditions.push(module.i32.or(module.i64.le_s(p.hi(), h.lo()), module.i64.le_s(h.hi(), p.lo())));
    }
    // A unit whose address one step on another unit reads reads that unit's value of the previous
    // iteration; the first iteration's values are loaded before the loop.
    const locals = new Map<number, number>();
    for (const [e, unit] of w.units) {
      const local = addVar(func, i32);
      locals.set(e, local);
      if (w.units.has(e + w.step)) {
        hoisted.set(unit.expr, local);
        const at = () => emitLinear(unit.base);
        const words = unit.offsets.map((o) => module.i32.load(o, 4, at()));
        hoistLoads.push(
          module.local.set(
            local,
            words.reduce((acc, x) => module.i32.or(acc, x)),
          ),
        );
      } else if (w.units.has(e - w.step)) {
        captured.set(unit.expr, local);
      }
    }
    const order = [...w.units.keys()]
      .filter((e) => w.units.has(e + w.step))
      .sort((x, y) => (w.step > 0 ? x - y : y - x));
    for (const e of order)
      rotation.push(module.local.set(locals.get(e)!, module.local.get(locals.get(e + w.step)!, i32)));
  }

  const fast = module.copyExpression(loop);
  const stores = new Map<Expr, number>(sunk.map((s) => [s.access.expr, s.value]));
  rewriteCopy(module, loop, fast, hoisted, stores, captured);
  const fastBody = Loop.getBody(fast);
  rotation.forEach((set) => Block.insertChildAt(fastBody, Block.getNumChildren(fastBody) - 1, set));
  renameLabels(fast);
  const after: Expr[] = [];
  const storedOnce = new Set<number>();
  for (const s of sunk) {
    if (storedOnce.has(s.value)) continue;
    storedOnce.add(s.value);
    const v = module.local.get(s.value, typeOf(Store.getValue(s.access.expr)));
    const at = module.local.get(s.address, i32);
    after.push(
      s.access.bytes === 8 ? module.i64.store(s.access.offset, 4, at, v) : module.i32.store(s.access.offset, 4, at, v),
    );
  }
  // The hoisted loads run only when the check passed (their words lie below programBase).
  const ok = conditions.reduce((acc, c) => module.i32.and(acc, c));
  return module.block(null, [...pre, module.if(ok, module.block(null, [...hoistLoads, fast, ...after]), loop)]);
}

/** Walks the loop and its copy in step: in the copy, hoisted loads read their local, sunk stores set theirs. */
function rewriteCopy(
  module: binaryen.Module,
  original: Expr,
  copy: Expr,
  hoisted: Map<Expr, number>,
  stores: Map<Expr, number>,
  captured: Map<Expr, number>,
): void {
  const a = childSlots(original);
  const c = childSlots(copy);
  if (a.length !== c.length) throw new Error('internal: loop copy differs from the original');
  for (let i = 0; i < a.length; i++) {
    const from = a[i]!.expr;
    const to = c[i]!.expr;
    const local = hoisted.get(from);
    if (local !== undefined) {
      c[i]!.replace(module.local.get(local, typeOf(from)));
      continue;
    }
    const value = stores.get(from);
    if (value !== undefined) {
      c[i]!.replace(module.local.set(value, Store.getValue(to)));
      continue;
    }
    const capture = captured.get(from);
    if (capture !== undefined) {
      c[i]!.replace(module.local.tee(capture, to, binaryen.i32));
      continue;
    }
    rewriteCopy(module, from, to, hoisted, stores, captured);
  }
}

/** Visits every node, operands before the operation (a join after the loads it joins). */
function walkTree(root: Expr, visit: (expr: Expr) => void): void {
  for (const child of children(root)) walkTree(child, visit);
  visit(root);
}
