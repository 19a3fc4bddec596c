// Invariant label words gathered at the start of a label chain (issue 27). In an innermost loop the
// label of a stored element is built as a chain of statements, `$t = $inv1; $t = $t | x; … $t =
// $t | y | $inv2`, and every invariant word it ORs in is one more integer live across the whole
// loop. TurboFan's code of these loops holds more live integers than x64 has registers (gemm -O2's
// fast loop reloaded four invariant words from the stack per element pair, docs/taint.md, taintregs),
// so each word that can be moved out pays. When nothing but the chain's own links reads `$t`
// between its first statement and its last one, and no statement between them can branch or
// call, the invariant words of the later links are ORed into the first one instead (OR is
// associative, commutative and idempotent: `$t` ends with the same value, and the intermediate
// ones are never seen); when the first link reads only invariant words, they are all joined once
// before the loop into a local of their own, and the first link reads that.
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Id,
  LocalGet,
  LocalSet,
  Loop,
  addVar,
  childSlots,
  idOf,
  typeOf,
  walkPostOrder,
  type ChildSlot,
  type Expr,
} from '../ir.js';
import { versionInnermostLoops } from './shadow-versioning.js';
import { hasBarrier } from './taint-hoist.js';

/** Gathers the invariant words of the label chains in each innermost loop of `func`; returns how many loops changed. */
export function gatherChainJoins(module: binaryen.Module, func: number): number {
  return versionInnermostLoops(func, (loop) => gatherInLoop(module, func, loop));
}

function gatherInLoop(module: binaryen.Module, func: number, loop: Expr): Expr | null {
  const body = Loop.getBody(loop);
  if (idOf(body) !== Id.Block) return null;
  const written = new Set<number>();
  walkPostOrder(loop, (e) => {
    if (idOf(e) === Id.LocalSet) written.add(LocalSet.getIndex(e));
  });
  const invariant = (e: Expr) => idOf(e) === Id.LocalGet && !written.has(LocalGet.getIndex(e));
  const statements = Array.from({ length: Block.getNumChildren(body) }, (_, i) => Block.getChildAt(body, i));
  const before: Expr[] = [];
  for (let start = 0; start < statements.length; start++) {
    const first = statements[start]!;
    if (!isPlainSet(first) || typeOf(LocalSet.getValue(first)) !== binaryen.i32) continue;
    const t = LocalSet.getIndex(first);
    if (reads(LocalSet.getValue(first), t) > 0) continue;
    const moved: ChildSlot[] = [];
    for (const stmt of statements.slice(start + 1)) {
      if (hasBarrier(stmt)) break;
      const link = linkLeaves(stmt, t);
      if (link === null) {
        if (touches(stmt, t)) break;
        continue;
      }
      moved.push(...link.filter((slot) => invariant(slot.expr)));
    }
    const firstLeaves = orLeaves(childSlots(first)[0]!);
    // A first link that reads something else would keep every moved word's register and add one.
    if (moved.length === 0 || !firstLeaves.every((slot) => invariant(slot.expr))) continue;
    const gathered = [...firstLeaves, ...moved];
    const word = addVar(func, binaryen.i32);
    const get = (slot: ChildSlot) => module.local.get(LocalGet.getIndex(slot.expr), binaryen.i32);
    before.push(
      module.local.set(
        word,
        gathered.slice(1).reduce((acc, slot) => module.i32.or(acc, get(slot)), get(gathered[0]!)),
      ),
    );
    for (const slot of moved) slot.replace(module.i32.const(0));
    childSlots(first)[0]!.replace(module.local.get(word, binaryen.i32));
  }
  return before.length === 0 ? null : module.block(null, [...before, loop], binaryen.none);
}

function isPlainSet(e: Expr): boolean {
  return idOf(e) === Id.LocalSet && !LocalSet.isTee(e);
}

/** The leaves of the `i32.or` tree in `slot` (the slot itself when it holds no `i32.or`). */
export function orLeaves(slot: ChildSlot): ChildSlot[] {
  const e = slot.expr;
  if (idOf(e) === Id.Binary && Binary.getOp(e) === binaryen.OrInt32) return childSlots(e).flatMap(orLeaves);
  return [slot];
}

/**
 * When `stmt` is a link of `$t`'s chain — `$t = ` an `i32.or` tree with `local.get $t` as one leaf
 * and no other read of `$t` — the slots of its other leaves; otherwise null.
 */
function linkLeaves(stmt: Expr, t: number): ChildSlot[] | null {
  if (!isPlainSet(stmt) || LocalSet.getIndex(stmt) !== t) return null;
  const value = LocalSet.getValue(stmt);
  const leaves = orLeaves(childSlots(stmt)[0]!);
  const own = leaves.filter((slot) => idOf(slot.expr) === Id.LocalGet && LocalGet.getIndex(slot.expr) === t);
  if (own.length !== 1 || reads(value, t) !== 1) return null;
  return leaves.filter((slot) => slot !== own[0]);
}

function reads(e: Expr, local: number): number {
  let count = 0;
  walkPostOrder(e, (x) => {
    if (idOf(x) === Id.LocalGet && LocalGet.getIndex(x) === local) count++;
  });
  return count;
}

function touches(e: Expr, local: number): boolean {
  let found = false;
  walkPostOrder(e, (x) => {
    const id = idOf(x);
    if (
      (id === Id.LocalGet && LocalGet.getIndex(x) === local) ||
      (id === Id.LocalSet && LocalSet.getIndex(x) === local)
    )
      found = true;
  });
  return found;
}
