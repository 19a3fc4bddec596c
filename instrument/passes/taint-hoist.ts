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
import { Binary, Block, Id, LocalGet, LocalSet, Loop, idOf, walkPostOrder, type Expr } from '../ir.js';

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

function hasBarrier(stmt: Expr): boolean {
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
  const blocks: Expr[] = [];
  walkPostOrder(root, (e) => {
    if (idOf(e) === Id.Block) blocks.push(e);
  });
  for (const block of blocks) {
    for (let i = 0; i < Block.getNumChildren(block); i++) {
      const stmt = Block.getChildAt(block, i);
      if (idOf(stmt) !== Id.Loop) continue;
      const hoisted = invariantJoins(module, stmt);
      for (const moved of hoisted) Block.insertChildAt(block, i++, moved);
    }
  }
}
