// Label windows of a stencil's loop: labels read at the same moving address plus constants one
// step apart (A[j − 1], A[j], A[j + 1]), so that each iteration reads again what the previous one
// read. shadow-loop-labels.ts carries them in locals when no store of the loop can reach them.
import binaryen from 'binaryen';
import { Binary, Id, Load, idOf, typeOf, type Expr } from '../ir.js';
import {
  Op,
  isConstLin,
  lin,
  linKey,
  partnerRanges,
  sameBase,
  walkTree,
  type Access,
  type Linear,
  type PartnerRange,
} from './loop-affine.js';

/** A label read at `base + step·t` (one word, or an 8-byte label's two words joined). */
export interface Unit {
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
export interface Window {
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
export function findWindows(
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
