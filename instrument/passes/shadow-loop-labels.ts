// Label reads an innermost loop repeats, replaced behind an alias check at loop entry (after the
// function's optimizer).
//
// Two shapes. A label whose address does not change is read again every iteration when the loop
// also stores labels elsewhere (gemm's `A[i][k]`: its label is reloaded after every store of
// `C[i][j]`'s, which might be the same word). And a stencil reads at `p − 8`, `p`, `p + 8` with p
// stepping by 8 (jacobi-2d's `A[i][j − 1]`, `A[i][j]`, `A[i][j + 1]`): two of its three labels were
// read by the previous iteration (shadow-loop-windows.ts). When no store of the loop can reach
// those label words for the whole trip, the invariant label is read once before the loop and the
// stencil's labels are carried from one iteration to the next in locals. Whether a store can reach
// them depends on run-time values, so the loop is versioned:
//
//   if (<every store's range over the trip is disjoint from those label words>)
//     { T = load(P); <copy of the loop reading T and the carried locals> }
//   else <the loop as it was>
//
// The ranges come from a symbolic evaluation of one iteration (loop-affine.ts): an address is
// `base + step·t` (t the iteration, base and step linear in the locals' values at entry, mod 2^32),
// and the trip count comes from the back edge, `br_if $loop (x != y)` with x − y stepped by ±2^k
// per iteration. Every range is computed in i64 and must lie in [0, 2^32) over the whole trip, so
// the u32 addresses the engine forms are exactly the linear ones (no wrap-around). The label words
// read must lie below the program (`end ≤ programBase`), so a program store, whose static offset is
// at least programBase, never touches them, and the loads moved before the loop cannot trap
// (memory is programBase plus the program's size). A loop with a call, a bulk memory operation or
// an atomic access is left alone.
//
// Tried and not kept: the label store of an invariant address (trmm's `B[i][j]`, written every
// iteration over k) turned into a local stored once after the loop, behind the same check: no
// change beyond the noise on trmm -O2 in three runs (4.18 → 4.23, 4.19 → 4.27, 4.17 → 4.49).
import binaryen from 'binaryen';
import { Binary, Block, Id, Load, Loop, addVar, i64Const, idOf, typeOf, type Expr } from '../ir.js';
import { renameLabels, versionInnermostLoops, walkCopyInStep } from './shadow-versioning.js';
import {
  Op,
  evaluateLoop,
  isConstLin,
  lin,
  linKey,
  loopShape,
  partnerRanges,
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

/** Versions the innermost loops of `func` whose repeated label reads can go; returns how many. */
export function hoistLoopLabels(module: binaryen.Module, func: number, region: LabelRegion): number {
  return versionInnermostLoops(func, (loop) => versionLoop(module, func, loop, region));
}

function versionLoop(module: binaryen.Module, func: number, loop: Expr, region: LabelRegion): Expr | null {
  const name = Loop.getName(loop);
  const body = Loop.getBody(loop);
  if (!name || typeOf(loop) !== binaryen.none || !withinLimits(loop)) return null;
  const shape = loopShape(loop, name);
  if (shape === null) return null;
  const facts = evaluateLoop(body, shape.assigned, shape.backEdge);
  const isLabel = (a: Access) => a.offset >= region.labels && a.offset < region.programBase;
  // Accesses below the program: the only ones that can reach a label word.
  const low = facts.accesses.filter((a) => a.offset < region.programBase);
  const invariant = (a: Access) => a.address !== null && isConstLin(a.address.step) && a.address.step.c === 0;
  const hoistable = (a: Access) => !a.store && isLabel(a) && invariant(a) && simpleType(a) && !Load.isAtomic(a.expr);
  const trip = tripCount(facts.backEdge);

  // Candidates grouped by their address's base: one entry check per group and partner.
  const groups = new Map<string, Group>();
  for (const a of facts.accesses) {
    if (!hoistable(a)) continue;
    const key = `${linKey(a.address!.base)}|${a.address!.base.c}`;
    let g = groups.get(key);
    if (!g) {
      g = { base: a.address!.base, members: [], lo: Infinity, hi: -Infinity };
      groups.set(key, g);
    }
    g.members.push(a);
  }
  for (const g of groups.values()) {
    for (const a of g.members) {
      g.lo = Math.min(g.lo, a.offset);
      g.hi = Math.max(g.hi, a.offset + a.bytes);
    }
  }
  // A group's loads must miss every store below the program.
  const stores = partnerRanges(
    low.filter((a) => a.store),
    trip !== null,
  );
  const checks: Array<{ group: Group; partners: PartnerRange[] }> = [];
  for (const g of groups.values()) {
    if (stores === null) break;
    // A store at the same base overlapping the group's words: the check would always fail.
    if (stores.some((p) => p.invariant && sameBase(p.base, g.base) && p.lo < g.hi && g.lo < p.hi)) continue;
    checks.push({ group: g, partners: stores });
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
}

/** A full-width i32 or i64 load. */
function simpleType(a: Access): boolean {
  const type = typeOf(a.expr);
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
  rewriteCopy(module, loop, fast, hoisted, captured);
  const fastBody = Loop.getBody(fast);
  rotation.forEach((set) => Block.insertChildAt(fastBody, Block.getNumChildren(fastBody) - 1, set));
  renameLabels(fast);
  // The hoisted loads run only when the check passed (their words lie below programBase).
  const ok = conditions.reduce((acc, c) => module.i32.and(acc, c));
  return module.block(null, [...pre, module.if(ok, module.block(null, [...hoistLoads, fast]), loop)]);
}

/** Walks the loop and its copy in step: in the copy, hoisted and carried labels are read from their locals, a window's leading label is kept in one. */
function rewriteCopy(
  module: binaryen.Module,
  original: Expr,
  copy: Expr,
  hoisted: Map<Expr, number>,
  captured: Map<Expr, number>,
): void {
  walkCopyInStep(original, copy, (from, slot) => {
    const local = hoisted.get(from);
    if (local !== undefined) {
      slot.replace(module.local.get(local, typeOf(from)));
      return true;
    }
    const capture = captured.get(from);
    if (capture !== undefined) {
      slot.replace(module.local.tee(capture, slot.expr, binaryen.i32));
      return true;
    }
    return false;
  });
}
