// Counters in memory indexed by a value (`count[r]++`, `count[r] -= 2`): stores that write back to
// an address the value loaded from that same address plus or minus a constant. With the default
// pointer semantics (a load's label is its bytes', not its address's) such a count carries no
// label: every increment adds a constant. Yet which cell each increment lands in is decided by the
// index, so the counts are what the index values made them — LULESH counts the elements of each
// region (`regElemSize(regNumList(i) - 1)++`) and then runs loops to those counts. Under implicit
// flow the pass therefore joins the address's label into such a store (taint-memory.ts), as it
// joins a branch's label into the values the branch selects. Other stores through a labelled
// address are left alone: `a[i] += x` in a loop over n must not give every element n.
//
// Detection is static, on the flat IR, by value numbering along each block's straight-line
// statements (code generation reuses locals, so a local's name does not identify its value).
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Id,
  Load,
  LocalGet,
  LocalSet,
  Store,
  idOf,
  runtimeNumber,
  walkPostOrder,
  type Expr,
} from '../ir.js';

const ADD = new Set(['AddInt32', 'AddInt64'].map(runtimeNumber));
const SUB = new Set(['SubInt32', 'SubInt64'].map(runtimeNumber));

/** Values of one straight-line run: each local's current value number and what defined each number. */
class ValueNumbers {
  private next = 0;
  private current = new Map<number, number>();
  private defined = new Map<number, Expr>();

  /** The value number of a flat operand (null: a constant or anything but a local). */
  of(operand: Expr): number | null {
    if (idOf(operand) !== Id.LocalGet) return null;
    const index = LocalGet.getIndex(operand);
    let value = this.current.get(index);
    if (value === undefined) {
      value = this.next++;
      this.current.set(index, value);
    }
    return value;
  }

  /** The expression that computed a value number (null: a value from before this run). */
  definition(operand: Expr): Expr | null {
    if (idOf(operand) === Id.Const) return operand;
    const value = this.of(operand);
    return value === null ? null : (this.defined.get(value) ?? null);
  }

  assign(set: Expr): void {
    const value = LocalSet.getValue(set);
    const copied = idOf(value) === Id.LocalGet ? this.of(value) : null;
    const number = copied ?? this.next++;
    if (copied === null) this.defined.set(number, value);
    this.current.set(LocalSet.getIndex(set), number);
  }

  clear(): void {
    this.current.clear();
  }
}

/** Whether `store` writes back `load(p) ± c` to the cell `p` it was loaded from. */
function isCounterUpdate(values: ValueNumbers, store: Expr): boolean {
  const value = values.definition(Store.getValue(store));
  if (value === null || idOf(value) !== Id.Binary) return false;
  const op = Binary.getOp(value);
  if (!ADD.has(op) && !SUB.has(op)) return false;
  const constant = (operand: Expr) => {
    const d = values.definition(operand);
    return d !== null && idOf(d) === Id.Const;
  };
  const left = Binary.getLeft(value);
  const right = Binary.getRight(value);
  // count + c, count - c, c + count (never c - count: that is not a count).
  const loaded = constant(right) ? left : constant(left) && ADD.has(op) ? right : null;
  if (loaded === null) return false;
  const load = values.definition(loaded);
  if (load === null || idOf(load) !== Id.Load || Load.isAtomic(load)) return false;
  const pointer = values.of(Store.getPtr(store));
  return (
    pointer !== null &&
    values.of(Load.getPtr(load)) === pointer &&
    Load.getOffset(load) === Store.getOffset(store) &&
    Load.getBytes(load) === Store.getBytes(store) &&
    binaryen.getExpressionType(value) === binaryen.getExpressionType(load)
  );
}

/** The stores of `body` (flat IR) that update a counter in memory through the address it was read from. */
export function counterStores(body: Expr): Set<Expr> {
  const out = new Set<Expr>();
  walkPostOrder(body, (block) => {
    if (idOf(block) !== Id.Block) return;
    const values = new ValueNumbers();
    for (let i = 0; i < Block.getNumChildren(block); i++) {
      const s = Block.getChildAt(block, i);
      const id = idOf(s);
      if (id === Id.LocalSet) values.assign(s);
      else if (id === Id.Store) {
        if (isCounterUpdate(values, s)) out.add(s);
      } else if (id !== Id.Drop && id !== Id.Call && id !== Id.CallIndirect) values.clear();
    }
  });
  return out;
}
