// One word per label chain in an innermost loop, joined once before it (issue 27). In the fast copy
// of a loop, each stored element's label is an `i32.or` tree spread over statements through
// temporaries (`$a = L(x) | $p; $b = L(y) | $q; $a = $a | $b; $acc = $a | $acc | $c`), and every
// word it reads that is not loaded in the iteration is one more integer live across the loop:
// invariant words (`$c`) and the labels of pointers the loop steps (`$p = $p | $step` once per
// iteration). TurboFan's code of these loops holds more live integers than x64 has registers
// (trmm -O2's fast loop: 44 stack operands among its 138 x64 instructions, docs/taint.md,
// taintregs), so this pass gives each chain one invariant word in their place:
//
//   <the first iteration, as it was>
//   if (<its back-edge condition>) { z1 = $p | $q | $c; …; loop { <the body without the pointer
//   labels' updates, each chain reading z1, z2, …> } }
//
// Exact, not an approximation. A pointer label is monotone: after the first iteration it holds
// `$p0 | $step`, and every later update ORs in the same step again, which changes nothing; so with
// the first iteration run before the loop (a `loop` runs its body at least once, and the body has
// no branch before its last statement) the pointer labels are invariant in the loop, and their
// updates go. A chain's last value (the root, what the program's label store reads) is the OR of
// all its tree's leaves whichever statement ORs each in (OR is associative, commutative and
// idempotent), so its invariant words can all be read as one; only the temporaries' values change,
// and each of those is read by its chain alone: once, in the iteration that wrote it, never after
// the loop (loop-exit-liveness.ts).
//
// It runs only when that frees registers: the words read by nothing in the loop but chains (and
// the pointer labels' updates, which go) must outnumber the chains reading them. A chain whose first link mixes invariant and varying values gathers
// too (without a stepped pointer label nothing is peeled). taint-chain-joins.ts, run before it,
// handles chains split by calls.
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Break,
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
import { deadAfterLoop, indexLocalReads, type LocalReads } from '../loop-exit-liveness.js';
import { versionInnermostLoops } from './shadow-versioning.js';
import { orLeaves } from './taint-chain-joins.js';

/** Joins the invariant and pointer-label words of the label chains in each innermost loop of `func` into one per chain; returns how many loops changed. */
export function joinChainWords(module: binaryen.Module, func: number): number {
  let index: LocalReads | null = null;
  return versionInnermostLoops(func, (loop) => {
    const rewritten = joinInLoop(module, func, loop, () => (index ??= indexLocalReads(func)));
    // The loop is about to move into a block of its own: the index no longer describes the tree.
    if (rewritten !== null) index = null;
    return rewritten;
  });
}

/** Kinds a straight-line statement may contain: no branch, call, loop, atomic or bulk memory operation. */
const STRAIGHT = new Set<number>([
  Id.Nop,
  Id.LocalGet,
  Id.LocalSet,
  Id.GlobalGet,
  Id.GlobalSet,
  Id.Load,
  Id.Store,
  Id.Const,
  Id.Unary,
  Id.Binary,
  Id.Select,
  Id.Drop,
  Id.MemorySize,
]);

interface Access {
  local: number;
  expr: Expr;
  statement: number;
  write: boolean;
}

/** One iteration of the loop body, as the analysis reads it. */
interface Iteration {
  statements: Expr[];
  /** Every read and write of a local, in evaluation order. */
  accesses: Access[];
  /** Not written in the loop once its first iteration is peeled (the pointer labels too). */
  invariant: (local: number) => boolean;
  /** The statements the peeled loop drops: the pointer labels' updates. */
  updates: Set<number>;
  /** Whether the local's value when the loop ends is never read (asked only when needed). */
  deadAfter: (local: number) => boolean;
}

function joinInLoop(module: binaryen.Module, func: number, loop: Expr, liveness: () => LocalReads): Expr | null {
  const body = Loop.getBody(loop);
  if (typeOf(loop) !== binaryen.none || idOf(body) !== Id.Block) return null;
  const statements = Array.from({ length: Block.getNumChildren(body) }, (_, i) => Block.getChildAt(body, i));
  if (!isBackEdge(statements.at(-1), Loop.getName(loop))) return null;
  for (const stmt of statements) if (!isStraight(stmt, stmt === statements.at(-1))) return null;
  const accesses: Access[] = [];
  statements.forEach((stmt, statement) =>
    walkPostOrder(stmt, (e) => {
      if (idOf(e) === Id.LocalGet) accesses.push({ local: LocalGet.getIndex(e), expr: e, statement, write: false });
      else if (idOf(e) === Id.LocalSet) accesses.push({ local: LocalSet.getIndex(e), expr: e, statement, write: true });
    }),
  );
  const written = new Set(accesses.filter((a) => a.write).map((a) => a.local));
  const pointers = monotonePointers(statements, accesses, (local) => !written.has(local));
  const updates = new Set(pointers.values());
  const iteration: Iteration = {
    statements,
    accesses,
    invariant: (local) => !written.has(local) || pointers.has(local),
    updates,
    deadAfter: (local) => deadAfterLoop(liveness(), loop, local),
  };
  const chains = chainWords(iteration);

  // The words read only as chain leaves leave the loop (each chain reads one word instead), and so
  // do the words only the pointer labels' updates read.
  const loopReads = new Map<number, number>();
  const updateReads = new Set<number>();
  for (const a of accesses) {
    if (a.write) continue;
    if (updates.has(a.statement)) updateReads.add(a.local);
    else loopReads.set(a.local, (loopReads.get(a.local) ?? 0) + 1);
  }
  const leafReads = new Map<number, number>();
  for (const slot of chains.flat()) {
    const local = LocalGet.getIndex(slot.expr);
    leafReads.set(local, (leafReads.get(local) ?? 0) + 1);
  }
  const freed = new Set([...leafReads.keys()].filter((local) => leafReads.get(local) === loopReads.get(local)));
  for (const local of updateReads) if (!loopReads.has(local)) freed.add(local);
  const gathered = chains.filter((chain) => chain.some((slot) => freed.has(LocalGet.getIndex(slot.expr))));
  if (gathered.length >= freed.size) return null;

  // Copied before the chains change: the peeled first iteration runs as it was.
  const peel = pointers.size > 0;
  const first = peel ? statements.slice(0, -1).map((stmt) => module.copyExpression(stmt)) : [];
  const again = peel ? module.copyExpression(Break.getCondition(statements.at(-1)!)) : 0;
  const get = (local: number) => module.local.get(local, binaryen.i32);
  const joins = gathered.map((chain) => {
    const word = addVar(func, binaryen.i32);
    const locals = [...new Set(chain.map((slot) => LocalGet.getIndex(slot.expr)))];
    chain.forEach((slot, k) => slot.replace(k === 0 ? get(word) : module.i32.const(0)));
    return module.local.set(
      word,
      locals.slice(1).reduce((acc, l) => module.i32.or(acc, get(l)), get(locals[0]!)),
    );
  });
  const kept = statements.filter((_, k) => !updates.has(k));
  const rest = module.block(
    null,
    [...joins, module.loop(Loop.getName(loop), module.block(Block.getName(body), kept, binaryen.none))],
    binaryen.none,
  );
  return peel ? module.block(null, [...first, module.if(again, rest)], binaryen.none) : rest;
}

/**
 * Per chain (a link whose value is not folded into a later link), the slots of its leaves that
 * read an invariant word or a pointer label. A link is folded into a later one when that one's
 * `i32.or` tree reads its value and nothing else does: not in the iteration, not in the next one
 * (the local is written before it is read there), not after the loop.
 */
function chainWords(iteration: Iteration): ChildSlot[][] {
  const { statements, accesses, invariant, updates } = iteration;
  const links = new Map<Expr, ChildSlot[]>();
  statements.forEach((stmt, statement) => {
    if (statement < statements.length - 1 && !updates.has(statement) && isLink(stmt))
      links.set(stmt, orLeaves(childSlots(stmt)[0]!));
  });
  // Which write each read sees in the iteration, and how often each write is read there.
  const reaching = new Map<Expr, Expr>();
  const readsOf = new Map<Expr, number>();
  const lastWrite = new Map<number, Expr>();
  const writtenFirst = new Map<number, boolean>();
  for (const a of accesses) {
    if (!writtenFirst.has(a.local)) writtenFirst.set(a.local, a.write);
    if (a.write) lastWrite.set(a.local, a.expr);
    else if (lastWrite.has(a.local)) {
      const write = lastWrite.get(a.local)!;
      reaching.set(a.expr, write);
      readsOf.set(write, (readsOf.get(write) ?? 0) + 1);
    }
  }
  const folded = new Set<Expr>();
  for (const leaves of links.values())
    for (const leaf of leaves) {
      const write = reaching.get(leaf.expr);
      if (write === undefined || !links.has(write) || readsOf.get(write) !== 1) continue;
      const local = LocalSet.getIndex(write);
      const escapes =
        lastWrite.get(local) === write && (writtenFirst.get(local) !== true || !iteration.deadAfter(local));
      if (!escapes) folded.add(write);
    }
  const leavesOf = (link: Expr): ChildSlot[] =>
    links.get(link)!.flatMap((leaf) => {
      const write = reaching.get(leaf.expr);
      return write !== undefined && folded.has(write) ? leavesOf(write) : [leaf];
    });
  const isWord = (slot: ChildSlot) => idOf(slot.expr) === Id.LocalGet && invariant(LocalGet.getIndex(slot.expr));
  return [...links.keys()].filter((link) => !folded.has(link)).map((link) => leavesOf(link).filter(isWord));
}

/**
 * The pointer labels of the loop, each with the index of the statement that updates it: locals
 * written in it only by a statement `$p = $p | $step`, `$step` invariant.
 */
function monotonePointers(
  statements: Expr[],
  accesses: Access[],
  invariant: (local: number) => boolean,
): Map<number, number> {
  const writes = new Map<number, number>();
  for (const a of accesses) if (a.write) writes.set(a.local, (writes.get(a.local) ?? 0) + 1);
  const pointers = new Map<number, number>();
  statements.forEach((stmt, update) => {
    if (!isLink(stmt)) return;
    const local = LocalSet.getIndex(stmt);
    const value = LocalSet.getValue(stmt);
    if (writes.get(local) !== 1 || idOf(value) !== Id.Binary || Binary.getOp(value) !== binaryen.OrInt32) return;
    const [left, right] = [Binary.getLeft(value), Binary.getRight(value)];
    if (idOf(left) !== Id.LocalGet || idOf(right) !== Id.LocalGet) return;
    const [a, b] = [LocalGet.getIndex(left), LocalGet.getIndex(right)];
    const step = a === local ? b : b === local ? a : null;
    if (step !== null && step !== local && invariant(step)) pointers.set(local, update);
  });
  return pointers;
}

/** `local.set $x (i32 value)` as a statement of its own. */
function isLink(stmt: Expr): boolean {
  return idOf(stmt) === Id.LocalSet && !LocalSet.isTee(stmt) && typeOf(LocalSet.getValue(stmt)) === binaryen.i32;
}

/** `br_if $loop cond`: the body's last statement, its one branch. */
function isBackEdge(stmt: Expr | undefined, loopName: string | null): boolean {
  return (
    stmt !== undefined &&
    loopName !== null &&
    idOf(stmt) === Id.Break &&
    Break.getName(stmt) === loopName &&
    Break.getCondition(stmt) !== 0 &&
    !Break.getValue(stmt)
  );
}

function isStraight(stmt: Expr, backEdge: boolean): boolean {
  let straight = true;
  walkPostOrder(backEdge ? Break.getCondition(stmt) : stmt, (e) => {
    if (!STRAIGHT.has(idOf(e))) straight = false;
  });
  return straight;
}
