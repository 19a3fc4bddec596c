// Locals that never carry a label, proven statically over a taint-instrumented function. A label
// local whose every assignment is 0 or a join of such locals (the label of a constant, of a value
// computed only from constants and clean locals, the exit label of a loop with constant bounds,
// a join nobody writes) holds 0 for the whole run, since a declared local starts at 0. Its reads
// become `i32.const 0` and `x | 0` becomes `x`, so the joins with it disappear and its own
// assignments are left unread (coalesce-locals drops them). Only integer values change shape: no
// value, trap or effect of the program changes.
import binaryen from 'binaryen';
import {
  Binary,
  Const,
  Func,
  Id,
  LocalGet,
  LocalSet,
  Select,
  childSlots,
  idOf,
  walkPostOrder,
  type Expr,
} from '../ir.js';

/** Whether `expr` is 0 whenever every local in `zero` is. */
function isZero(expr: Expr, zero: ReadonlySet<number>): boolean {
  const id = idOf(expr);
  if (id === Id.Const) return binaryen.getExpressionType(expr) === binaryen.i32 && Const.getValueI32(expr) === 0;
  if (id === Id.LocalGet) return zero.has(LocalGet.getIndex(expr));
  if (id === Id.LocalSet) return LocalSet.isTee(expr) && isZero(LocalSet.getValue(expr), zero);
  if (id === Id.Select) return isZero(Select.getIfTrue(expr), zero) && isZero(Select.getIfFalse(expr), zero);
  if (id === Id.Binary) {
    const op = Binary.getOp(expr);
    const left = Binary.getLeft(expr);
    const right = Binary.getRight(expr);
    if (op === binaryen.OrInt32) return isZero(left, zero) && isZero(right, zero);
    if (op === binaryen.AndInt32) return isZero(left, zero) || isZero(right, zero);
  }
  return false;
}

/** The i32 locals (no parameter) that hold 0 throughout: a greatest fixpoint over their assignments. */
function zeroLocals(func: number, body: Expr): Set<number> {
  const params = binaryen.expandType(Func.getParams(func)).length;
  const assignments = new Map<number, Expr[]>();
  const readers = new Map<number, Set<number>>();
  walkPostOrder(body, (expr) => {
    if (idOf(expr) !== Id.LocalSet) return;
    const local = LocalSet.getIndex(expr);
    const list = assignments.get(local);
    if (list) list.push(LocalSet.getValue(expr));
    else assignments.set(local, [LocalSet.getValue(expr)]);
    walkPostOrder(LocalSet.getValue(expr), (inner) => {
      if (idOf(inner) !== Id.LocalGet) return;
      const read = LocalGet.getIndex(inner);
      let set = readers.get(read);
      if (!set) readers.set(read, (set = new Set()));
      set.add(local);
    });
  });
  const zero = new Set<number>();
  const count = Func.getNumLocals(func);
  for (let i = params; i < count; i++) if (Func.getVar(func, i - params) === binaryen.i32) zero.add(i);
  const work = [...zero];
  while (work.length > 0) {
    const local = work.pop()!;
    if (!zero.has(local)) continue;
    if ((assignments.get(local) ?? []).every((value) => isZero(value, zero))) continue;
    zero.delete(local);
    for (const reader of readers.get(local) ?? []) if (zero.has(reader)) work.push(reader);
  }
  return zero;
}

/** Reads of zero locals become `i32.const 0`; `x | 0` and `0 | x` become x. */
function fold(module: binaryen.Module, root: Expr, zero: ReadonlySet<number>): void {
  const visit = (expr: Expr): Expr => {
    for (const slot of childSlots(expr)) {
      const folded = visit(slot.expr);
      if (folded !== slot.expr) slot.replace(folded);
    }
    const id = idOf(expr);
    if (id === Id.LocalGet && zero.has(LocalGet.getIndex(expr))) return module.i32.const(0);
    if (id === Id.Binary && Binary.getOp(expr) === binaryen.OrInt32) {
      const left = Binary.getLeft(expr);
      const right = Binary.getRight(expr);
      if (isZero(right, zero) && idOf(right) === Id.Const) return left;
      if (isZero(left, zero) && idOf(left) === Id.Const) return right;
    }
    return expr;
  };
  visit(root);
}

/** Folds away the labels of `func` that are 0 throughout (see the header). */
export function foldCleanLabels(module: binaryen.Module, func: number): void {
  const body = Func.getBody(func);
  const zero = zeroLocals(func, body);
  if (zero.size === 0) return;
  try {
    fold(module, body, zero);
  } catch (error) {
    // Nesting too deep to walk: every fold made so far stays valid.
    if (!(error instanceof RangeError)) throw error;
  }
}
