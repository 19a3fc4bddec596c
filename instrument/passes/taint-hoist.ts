// Loop-invariant label joins moved in front of their loop. A label join whose operands no
// statement of the loop writes (the label of an address's invariant base, the exit condition's
// label when its bound and counter labels do not change) computes the same value every
// iteration, and an exit-sink accumulator joined with such a value (`acc = acc | x`) holds the
// same value after one iteration as after many. Such a statement runs once per entry of the loop
// instead, when it is one the first iteration always reaches (nothing before it in the loop body
// can branch, call or loop) and nothing in the loop reads its local before it.
// A self-copy (`local.set $x (local.get $x)`, left by the copy rewrites) is not a write.
// Only `local.get`, constants and `i32.or` move: no value, trap or effect of the program changes.
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Id,
  LocalGet,
  LocalSet,
  Loop,
  addVar,
  blocksIn,
  idOf,
  walkPostOrder,
  type Expr,
} from '../ir.js';

const BARRIERS = new Set<number>([Id.Break, Id.Switch, Id.Return, Id.Call, Id.CallIndirect, Id.Loop, Id.Unreachable]);

/** Whether `stmt` sets a local to a join of locals and constants; adds the locals the join reads to `reads`. */
function isJoin(stmt: Expr, reads: Set<number>): boolean {
  if (idOf(stmt) !== Id.LocalSet) return false;
  const expr = LocalSet.getValue(stmt);
  let join = true;
  walkPostOrder(expr, (e) => {
    const id = idOf(e);
    if (id === Id.LocalGet) reads.add(LocalGet.getIndex(e));
    else if (!(id === Id.Const || (id === Id.Binary && Binary.getOp(e) === binaryen.OrInt32))) join = false;
  });
  return join && binaryen.getExpressionType(expr) === binaryen.i32;
}

/** `local.set $x (local.get $x)`: a no-op the copy rewrites leave behind (it ran as a second write of `$x`). */
function isSelfCopy(e: Expr): boolean {
  if (idOf(e) !== Id.LocalSet || LocalSet.isTee(e)) return false;
  const value = LocalSet.getValue(e);
  return idOf(value) === Id.LocalGet && LocalGet.getIndex(value) === LocalSet.getIndex(e);
}

/** How often each local is written and read anywhere in `root` (self-copies neither write nor read). */
function localCounts(root: Expr): { writes: Map<number, number>; reads: Map<number, number> } {
  const counts = { writes: new Map<number, number>(), reads: new Map<number, number>() };
  const selfCopied = new Set<Expr>();
  walkPostOrder(root, (e) => {
    if (isSelfCopy(e)) selfCopied.add(e).add(LocalSet.getValue(e));
  });
  walkPostOrder(root, (e) => {
    const id = idOf(e);
    if (selfCopied.has(e)) return;
    if (id === Id.LocalSet) counts.writes.set(LocalSet.getIndex(e), (counts.writes.get(LocalSet.getIndex(e)) ?? 0) + 1);
    else if (id === Id.LocalGet)
      counts.reads.set(LocalGet.getIndex(e), (counts.reads.get(LocalGet.getIndex(e)) ?? 0) + 1);
  });
  return counts;
}

/** Whether the statement branches, returns, calls, loops or traps: straight-line rewrites stop at it. */
export function hasBarrier(stmt: Expr): boolean {
  let barrier = false;
  walkPostOrder(stmt, (e) => {
    if (BARRIERS.has(idOf(e))) barrier = true;
  });
  return barrier;
}

interface Position {
  block: Expr;
  index: number;
}

/** The statements the first iteration of a loop body runs, in order, up to the first that may branch, call or loop. */
function straightLinePrefix(block: Expr, out: Position[]): boolean {
  for (let index = 0; index < Block.getNumChildren(block); index++) {
    const stmt = Block.getChildAt(block, index);
    if (idOf(stmt) === Id.Block) {
      if (!straightLinePrefix(stmt, out)) return false;
      continue;
    }
    if (hasBarrier(stmt)) return false;
    out.push({ block, index });
  }
  return true;
}

/** The statements of `loop`'s body that can run once before it instead (see the header); removed from the body. */
function invariantJoins(module: binaryen.Module, loop: Expr): Expr[] {
  const body = Loop.getBody(loop);
  if (idOf(body) !== Id.Block) return [];
  const prefix: Position[] = [];
  straightLinePrefix(body, prefix);
  const counts = localCounts(body);
  const readBefore = new Set<number>();
  const invariant = (reads: Set<number>) => [...reads].every((local) => !counts.writes.get(local));
  const hoisted: Expr[] = [];
  for (const { block, index } of prefix) {
    const stmt = Block.getChildAt(block, index);
    const reads = new Set<number>();
    const join = isJoin(stmt, reads);
    if (
      idOf(stmt) === Id.LocalSet &&
      !LocalSet.isTee(stmt) &&
      counts.writes.get(LocalSet.getIndex(stmt)) === 1 &&
      join
    ) {
      const local = LocalSet.getIndex(stmt);
      // `acc = acc | x`, acc read nowhere else in the loop; or a join of other locals, not read before it.
      const selfRead = reads.delete(local);
      const accumulator = selfRead && counts.reads.get(local) === 1;
      const readLater = !selfRead && !readBefore.has(local);
      if (invariant(reads) && (accumulator || readLater)) {
        hoisted.push(stmt);
        Block.setChildAt(block, index, module.nop());
        counts.writes.set(local, 0);
        continue;
      }
    }
    walkPostOrder(stmt, (e) => {
      if (idOf(e) === Id.LocalGet) readBefore.add(LocalGet.getIndex(e));
    });
  }
  return hoisted;
}

/** Moves invariant label joins in front of every loop of `root` that is a statement of a block. */
export function hoistInvariantJoins(module: binaryen.Module, root: Expr): void {
  for (const block of blocksIn(root)) {
    for (let i = 0; i < Block.getNumChildren(block); i++) {
      const stmt = Block.getChildAt(block, i);
      if (idOf(stmt) !== Id.Loop) continue;
      const hoisted = invariantJoins(module, stmt);
      for (const moved of hoisted) Block.insertChildAt(block, i++, moved);
    }
  }
}

/** The leaves of an `i32.or` tree: every operand that is not itself an `i32.or`, in evaluation order. */
function orLeaves(expr: Expr, out: Expr[] = []): Expr[] {
  if (idOf(expr) === Id.Binary && Binary.getOp(expr) === binaryen.OrInt32) {
    orLeaves(Binary.getLeft(expr), out);
    orLeaves(Binary.getRight(expr), out);
  } else out.push(expr);
  return out;
}

const isLocalGet = (e: Expr, local?: number) =>
  idOf(e) === Id.LocalGet && (local === undefined || LocalGet.getIndex(e) === local);

/**
 * In one block of an innermost loop: the label joins feeding each other through single-use
 * temporaries (`$t = A | $inv1; $u = $t | B | $inv2; store … $u`) form a tree whose root computes
 * the join of every leaf. Leaves the loop never writes (address labels of invariant bases, a
 * scalar's label) are taken out of the tree and joined once before the loop into one local the
 * root joins instead: one `or` per iteration for all of them, and one register instead of many.
 */
function gatherInBlock(
  module: binaryen.Module,
  func: number,
  block: Expr,
  loopWrites: Map<number, number>,
  counts: { writes: Map<number, number>; reads: Map<number, number> },
  firstLabelLocal: number,
): Expr[] {
  const sets: Expr[] = [];
  const definedAt = new Map<number, number>();
  for (let index = 0; index < Block.getNumChildren(block); index++) {
    const stmt = Block.getChildAt(block, index);
    if (idOf(stmt) !== Id.LocalSet || LocalSet.isTee(stmt)) continue;
    const local = LocalSet.getIndex(stmt);
    if (local < firstLabelLocal || binaryen.getExpressionType(LocalSet.getValue(stmt)) !== binaryen.i32) continue;
    sets.push(stmt);
    if (counts.writes.get(local) === 1 && counts.reads.get(local) === 1) definedAt.set(local, sets.length - 1);
  }
  // Chain edges: a single-use temporary read as a leaf by a later join of the same block.
  const children = new Map<Expr, Expr[]>();
  const consumed = new Set<Expr>();
  sets.forEach((stmt, position) => {
    for (const leaf of orLeaves(LocalSet.getValue(stmt))) {
      if (!isLocalGet(leaf)) continue;
      const at = definedAt.get(LocalGet.getIndex(leaf));
      if (at === undefined || at >= position || consumed.has(sets[at]!)) continue;
      consumed.add(sets[at]!);
      children.set(stmt, [...(children.get(stmt) ?? []), sets[at]!]);
    }
  });
  const invariant = (leaf: Expr) => isLocalGet(leaf) && !loopWrites.get(LocalGet.getIndex(leaf));
  const hoisted: Expr[] = [];
  for (const root of sets) {
    if (consumed.has(root)) continue;
    const tree: Expr[] = [];
    const pending = [root];
    while (pending.length > 0) {
      const stmt = pending.pop()!;
      tree.push(stmt);
      pending.push(...(children.get(stmt) ?? []));
    }
    const gathered = new Set<number>();
    let occurrences = 0;
    for (const stmt of tree)
      for (const leaf of orLeaves(LocalSet.getValue(stmt)))
        if (invariant(leaf)) {
          gathered.add(LocalGet.getIndex(leaf));
          occurrences++;
        }
    if (occurrences < 2) continue;
    const joined = addVar(func, binaryen.i32);
    const get = (local: number) => module.local.get(local, binaryen.i32);
    hoisted.push(
      module.local.set(
        joined,
        [...gathered].map(get).reduce((a, b) => module.i32.or(a, b)),
      ),
    );
    for (const stmt of tree) {
      const kept = orLeaves(LocalSet.getValue(stmt)).filter((leaf) => !invariant(leaf));
      if (stmt === root) kept.push(get(joined));
      LocalSet.setValue(stmt, kept.length === 0 ? module.i32.const(0) : kept.reduce((a, b) => module.i32.or(a, b)));
    }
  }
  return hoisted;
}

/**
 * Gathers the loop-invariant leaves of label join trees in innermost loops (gatherInBlock) into
 * one join before the loop. Only trees of the pass's own label locals (from `firstLabelLocal`)
 * change; `or` is associative and commutative and the leaves moved are local reads, so every
 * label keeps its value and nothing else moves.
 */
export function gatherInvariantJoins(module: binaryen.Module, func: number, firstLabelLocal: number): void {
  const root = binaryen.getFunctionInfo(func).body;
  const counts = localCounts(root);
  for (const block of blocksIn(root)) {
    for (let i = 0; i < Block.getNumChildren(block); i++) {
      const loop = Block.getChildAt(block, i);
      if (idOf(loop) !== Id.Loop) continue;
      const inner: Expr[] = [];
      let nested = false;
      walkPostOrder(Loop.getBody(loop), (e) => {
        if (idOf(e) === Id.Loop) nested = true;
        else if (idOf(e) === Id.Block) inner.push(e);
      });
      if (nested) continue;
      const loopWrites = localCounts(Loop.getBody(loop)).writes;
      const hoisted = inner.flatMap((b) => gatherInBlock(module, func, b, loopWrites, counts, firstLabelLocal));
      for (const moved of hoisted) Block.insertChildAt(block, i++, moved);
    }
  }
}
