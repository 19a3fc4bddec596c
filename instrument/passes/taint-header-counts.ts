// Loop header counts from an induction variable instead of an i64 increment per iteration (the taint
// pass's sink records count each loop's header executions). In a hot loop the increment is an add
// and, under register pressure, a spill and a reload of the counter every iteration.
//
// A loop left only by falling off its end, whose counter `h` is stepped once at the start of every
// iteration (`h = h + 1` before anything that may branch, call or loop) and touched nowhere else in
// it, and whose body writes an i32 local `i` exactly once, in that same straight-line prefix, by
// `i ± 2^p` (directly, or through a temporary written once: `t = i + c; …; i = t`), ran
// `((±(i_exit − i_entry) − 2^p) mod 2^32 >>> p) + 1` iterations per entry (loops-induction.ts). So
// `i` is saved before the loop and that is added to `h` after it: the counter's value after the
// loop is what it was, and nothing in the loop reads it. Runs on the cleaned-up function (copies
// propagated), before alignment versioning doubles its loops.
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Const,
  Id,
  LocalGet,
  LocalSet,
  Loop,
  addVar,
  blocksIn,
  branchTargets,
  idOf,
  labelOf,
  walkPostOrder,
  type Expr,
} from '../ir.js';
import { tripsSince, type Induction } from './loops-induction.js';

const BARRIERS = new Set<number>([Id.Break, Id.Switch, Id.Return, Id.Call, Id.CallIndirect, Id.Loop, Id.Unreachable]);

/** The statements every iteration runs first, in order, up to the first that may branch, call or loop. */
function straightLinePrefix(block: Expr, out: Expr[]): boolean {
  for (let index = 0; index < Block.getNumChildren(block); index++) {
    const stmt = Block.getChildAt(block, index);
    if (idOf(stmt) === Id.Block && !labelOf(stmt)) {
      if (!straightLinePrefix(stmt, out)) return false;
      continue;
    }
    let barrier = false;
    walkPostOrder(stmt, (e) => {
      if (BARRIERS.has(idOf(e))) barrier = true;
    });
    if (barrier) return false;
    out.push(stmt);
  }
  return true;
}

/** `local.set $x (op (local.get $y) (const c))` (or `c + y`): y and the signed step, else null. */
function steppedFrom(stmt: Expr): { from: number; step: number } | null {
  const value = LocalSet.getValue(stmt);
  if (idOf(value) !== Id.Binary || binaryen.getExpressionType(value) !== binaryen.i32) return null;
  const op = Binary.getOp(value);
  const [left, right] = [Binary.getLeft(value), Binary.getRight(value)];
  const constOf = (e: Expr) => (idOf(e) === Id.Const ? Const.getValueI32(e) : null);
  let from: number | null = null;
  let step: number | null = null;
  if (op === binaryen.AddInt32 && idOf(left) === Id.LocalGet && constOf(right) !== null) {
    [from, step] = [LocalGet.getIndex(left), constOf(right)];
  } else if (op === binaryen.AddInt32 && idOf(right) === Id.LocalGet && constOf(left) !== null) {
    [from, step] = [LocalGet.getIndex(right), constOf(left)];
  } else if (op === binaryen.SubInt32 && idOf(left) === Id.LocalGet && constOf(right) !== null) {
    [from, step] = [LocalGet.getIndex(left), -constOf(right)! | 0];
  }
  if (from === null || step === null || step === 0 || step === -0x80000000) return null;
  const magnitude = Math.abs(step);
  return (magnitude & (magnitude - 1)) === 0 ? { from, step } : null;
}

/** An induction variable of the loop stepped once in `prefix` (see the header), else null. */
function inductionOf(prefix: Expr[], writes: Map<number, Expr[]>): Induction | null {
  const once = (local: number) => writes.get(local)?.length === 1;
  for (let k = 0; k < prefix.length; k++) {
    const stmt = prefix[k]!;
    if (idOf(stmt) !== Id.LocalSet || LocalSet.isTee(stmt)) continue;
    const local = LocalSet.getIndex(stmt);
    if (!once(local) || binaryen.getExpressionType(LocalSet.getValue(stmt)) !== binaryen.i32) continue;
    const direct = steppedFrom(stmt);
    if (direct && direct.from === local) return { local, step: direct.step, set: stmt };
    // `t = i + c` earlier in the prefix, t written once in the loop.
    const value = LocalSet.getValue(stmt);
    if (idOf(value) !== Id.LocalGet || !once(LocalGet.getIndex(value))) continue;
    const temp = LocalGet.getIndex(value);
    const earlier = prefix.slice(0, k).find((s) => idOf(s) === Id.LocalSet && LocalSet.getIndex(s) === temp);
    const stepped = earlier ? steppedFrom(earlier) : null;
    if (stepped && stepped.from === local) return { local, step: stepped.step, set: stmt };
  }
  return null;
}

/** `h = h + 1` on an i64 local of the pass (from `firstOwnLocal`): h, else null. */
function counterStep(stmt: Expr, firstOwnLocal: number): number | null {
  if (idOf(stmt) !== Id.LocalSet || LocalSet.isTee(stmt)) return null;
  const h = LocalSet.getIndex(stmt);
  const value = LocalSet.getValue(stmt);
  if (h < firstOwnLocal || idOf(value) !== Id.Binary || Binary.getOp(value) !== binaryen.AddInt64) return null;
  const [left, right] = [Binary.getLeft(value), Binary.getRight(value)];
  const one = idOf(right) === Id.Const && Const.getValueI64(right) === 1n;
  return one && idOf(left) === Id.LocalGet && LocalGet.getIndex(left) === h ? h : null;
}

/** The loop's rewrite (statements to put in its place), or null when its header count must stay an increment. */
function deriveHeaders(module: binaryen.Module, func: number, loop: Expr, firstOwnLocal: number): Expr[] | null {
  const body = Loop.getBody(loop);
  if (idOf(body) !== Id.Block || binaryen.getExpressionType(loop) !== binaryen.none) return null;
  // Only falling off the end leaves it: every branch targets a label inside the loop (or the loop).
  const inside = new Set<string>();
  const loopName = Loop.getName(loop);
  if (loopName) inside.add(loopName);
  const writes = new Map<number, Expr[]>();
  const reads = new Map<number, number>();
  let escapes = false;
  walkPostOrder(body, (e) => {
    const id = idOf(e);
    const label = labelOf(e);
    if (label) inside.add(label);
    if (id === Id.Return) escapes = true;
    if (id === Id.LocalSet) writes.set(LocalSet.getIndex(e), [...(writes.get(LocalSet.getIndex(e)) ?? []), e]);
    if (id === Id.LocalGet) reads.set(LocalGet.getIndex(e), (reads.get(LocalGet.getIndex(e)) ?? 0) + 1);
  });
  // Labels are defined before the branches to them in post-order only for loops; check after the walk.
  walkPostOrder(body, (e) => {
    for (const target of branchTargets(e)) if (!inside.has(target)) escapes = true;
  });
  if (escapes) return null;
  const prefix: Expr[] = [];
  straightLinePrefix(body, prefix);
  const counterStmt = prefix.find((s) => {
    const h = counterStep(s, firstOwnLocal);
    return h !== null && writes.get(h)?.length === 1 && reads.get(h) === 1;
  });
  if (!counterStmt) return null;
  const induction = inductionOf(prefix, writes);
  if (!induction) return null;
  const h = LocalSet.getIndex(counterStmt);
  const parent = prefix.length > 0 ? findParent(body, counterStmt) : null;
  if (!parent) return null;
  Block.setChildAt(parent.block, parent.index, module.nop());
  const start = addVar(func, binaryen.i32);
  const i64 = binaryen.i64;
  return [
    module.local.set(start, module.local.get(induction.local, binaryen.i32)),
    loop,
    module.local.set(h, module.i64.add(module.local.get(h, i64), tripsSince(module, induction, start))),
  ];
}

function findParent(block: Expr, stmt: Expr): { block: Expr; index: number } | null {
  for (let index = 0; index < Block.getNumChildren(block); index++) {
    const child = Block.getChildAt(block, index);
    if (child === stmt) return { block, index };
    if (idOf(child) === Id.Block) {
      const found = findParent(child, stmt);
      if (found) return found;
    }
  }
  return null;
}

/** Derives the header counts of the innermost loops of `root` that qualify (see the header). */
export function deriveHeaderCounts(module: binaryen.Module, func: number, root: Expr, firstOwnLocal: number): void {
  for (const block of blocksIn(root)) {
    for (let i = 0; i < Block.getNumChildren(block); i++) {
      const loop = Block.getChildAt(block, i);
      if (idOf(loop) !== Id.Loop) continue;
      let nested = false;
      walkPostOrder(Loop.getBody(loop), (e) => {
        if (idOf(e) === Id.Loop) nested = true;
      });
      if (nested) continue;
      const rewritten = deriveHeaders(module, func, loop, firstOwnLocal);
      if (rewritten) Block.setChildAt(block, i, module.block(null, rewritten, binaryen.none));
    }
  }
}
