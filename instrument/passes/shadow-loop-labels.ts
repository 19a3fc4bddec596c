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
  Func,
  Id,
  Load,
  Loop,
  Store,
  addVar,
  childSlots,
  i64Const,
  idOf,
  typeOf,
  type Expr,
} from '../ir.js';
import { collectInnermostLoops, renameLabels } from './shadow-versioning.js';
import {
  Op,
  evaluateLoop,
  isConstLin,
  lin,
  linKey,
  loopShape,
  partnerRanges,
  pureAddress,
  sameBase,
  tripCount,
  walkTree,
  withinLimits,
  type Access,
  type Linear,
  type PartnerRange,
  type Trip,
} from './loop-affine.js';
import { findWindows, type Window } from './shadow-loop-windows.js';

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

interface Group {
  base: Linear;
  members: Access[];
  /** The memarg offsets the group's accesses cover: [lo, hi). */
  lo: number;
  hi: number;
  drop: boolean;
}

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
