// Header counts from an induction variable instead of a per-iteration increment (loop profiler).
//
// A loop whose only way out is falling off the end of its body (no branch, return or exit out of
// it), and whose body writes some i32 local `i` exactly once, as `i = i ± 2^p` in its header region
// (so once per header execution), ran its header `trips` times per entry, where
// `i_exit − i_entry = ±trips · 2^p` (mod 2^32). trips is in [1, 2^(32−p)] (i stays in one residue
// class mod 2^p, so a terminating loop has at most 2^(32−p) distinct values), which makes it
// `((±(i_exit − i_entry) − 2^p) mod 2^32 >>> p) + 1` exactly. The profiler saves `i` at entry and
// adds that at exit: one subtraction per loop entry instead of `headers += 1` per iteration.
import binaryen from 'binaryen';
import { Binary, Const, Id, LocalGet, LocalSet, i64Const, idOf, walkPostOrder, type Expr } from '../ir.js';

export interface Induction {
  /** The local stepped once per iteration. */
  local: number;
  /** Its step, ±2^p. */
  step: number;
  /** The `local.set`/`local.tee` that steps it. */
  set: Expr;
}

/** `i = i + c` or `i = i - c` (either operand order for `+`) with c = ±2^p: the step, else null. */
function stepOf(set: Expr): number | null {
  const value = LocalSet.getValue(set);
  if (idOf(value) !== Id.Binary || binaryen.getExpressionType(value) !== binaryen.i32) return null;
  const op = Binary.getOp(value);
  const [left, right] = [Binary.getLeft(value), Binary.getRight(value)];
  const local = LocalSet.getIndex(set);
  const isSelf = (e: Expr) => idOf(e) === Id.LocalGet && LocalGet.getIndex(e) === local;
  const constOf = (e: Expr) => (idOf(e) === Id.Const ? Const.getValueI32(e) : null);
  let step: number | null = null;
  if (op === binaryen.AddInt32) step = isSelf(left) ? constOf(right) : isSelf(right) ? constOf(left) : null;
  else if (op === binaryen.SubInt32 && isSelf(left)) {
    const c = constOf(right);
    step = c === null ? null : -c | 0;
  }
  if (step === null || step === 0 || step === -0x80000000) return null;
  const magnitude = Math.abs(step);
  return (magnitude & (magnitude - 1)) === 0 ? step : null;
}

/** Per i32 local written exactly once in `loopBody` (nested loops included) by a power-of-two step: that write. */
export function inductionCandidates(loopBody: Expr): Induction[] {
  const writes = new Map<number, Expr[]>();
  walkPostOrder(loopBody, (expr) => {
    if (idOf(expr) !== Id.LocalSet) return;
    const local = LocalSet.getIndex(expr);
    writes.set(local, [...(writes.get(local) ?? []), expr]);
  });
  const candidates: Induction[] = [];
  for (const [local, sets] of writes) {
    const set = sets[0];
    if (sets.length !== 1 || !set) continue;
    const step = stepOf(set);
    if (step !== null) candidates.push({ local, step, set });
  }
  return candidates;
}

/** The header executions of one entry: from the induction's value at entry (in `startLocal`) and now (after the loop). */
export function tripsSince(module: binaryen.Module, induction: Induction, startLocal: number): Expr {
  const i32 = binaryen.i32;
  const now = module.local.get(induction.local, i32);
  const start = module.local.get(startLocal, i32);
  const distance = induction.step > 0 ? module.i32.sub(now, start) : module.i32.sub(start, now);
  const magnitude = Math.abs(induction.step);
  const shift = Math.log2(magnitude);
  return module.i64.add(
    module.i64.extend_u(
      module.i32.shr_u(module.i32.sub(distance, module.i32.const(magnitude)), module.i32.const(shift)),
    ),
    i64Const(module, 1),
  );
}
