// The counters of a loop: program locals that every write inside the loop steps by a value the loop
// does not change (`i = i + 1`, `p = p - 8`, `k += stride`). After t iterations a counter holds its
// entry value plus t steps, so its value is a function of how many iterations ran: the taint pass
// gives it the loop's exit labels at the back edge (`--implicit-flow loops`), which is what makes the
// inner loop of a triangular nest (`for j < i`) depend on the outer loop's parameters.
import binaryen from 'binaryen';
import { Binary, Id, LocalGet, LocalSet, idOf, walkPostOrder, type Expr } from './ir.js';

const STEPS = new Set([binaryen.AddInt32, binaryen.SubInt32, binaryen.AddInt64, binaryen.SubInt64]);

/**
 * Locals below `ownLocals` (the program's, not flattening temporaries) written in `loopBody` (nested
 * loops included) only by a step of themselves. A temporary written once in the body stands for its
 * value, so flattened code (`t = i + 1; i = t`) is recognised.
 */
export function loopCounters(loopBody: Expr, ownLocals: number): number[] {
  const writes = new Map<number, Expr[]>();
  walkPostOrder(loopBody, (expr) => {
    if (idOf(expr) !== Id.LocalSet) return;
    const local = LocalSet.getIndex(expr);
    writes.set(local, [...(writes.get(local) ?? []), LocalSet.getValue(expr)]);
  });
  // A local.get of a temporary with one write in the body: that write's value (one level is enough
  // for flat IR, whose operands are local.gets and constants).
  const resolve = (e: Expr): Expr => {
    if (idOf(e) !== Id.LocalGet) return e;
    const index = LocalGet.getIndex(e);
    const values = writes.get(index);
    return index >= ownLocals && values?.length === 1 ? values[0]! : e;
  };
  const unchanged = (e: Expr) => idOf(e) === Id.Const || (idOf(e) === Id.LocalGet && !writes.has(LocalGet.getIndex(e)));
  const invariant = (e: Expr) => unchanged(e) || unchanged(resolve(e));
  const isSelf = (e: Expr, local: number) => idOf(e) === Id.LocalGet && LocalGet.getIndex(e) === local;
  const steps = (value: Expr, local: number): boolean => {
    const v = resolve(value);
    if (idOf(v) !== Id.Binary || !STEPS.has(Binary.getOp(v))) return false;
    const [left, right] = [resolve(Binary.getLeft(v)), resolve(Binary.getRight(v))];
    const add = Binary.getOp(v) === binaryen.AddInt32 || Binary.getOp(v) === binaryen.AddInt64;
    return (
      (isSelf(left, local) && invariant(Binary.getRight(v))) ||
      (add && isSelf(right, local) && invariant(Binary.getLeft(v)))
    );
  };
  return [...writes]
    .filter(([local, values]) => local < ownLocals && values.every((value) => steps(value, local)))
    .map(([local]) => local);
}
