// The words an innermost loop's label chains join, carried in one word per chain (issue 27). In the
// fast copy of a loop, each stored element's label is an `i32.or` tree spread over statements
// through temporaries (`$a = L(x) | $p; $b = L(y) | $q; $a = $a | $b; $acc = $a | $acc | $c`),
// and every word it reads that is not loaded in the iteration is one more integer live across the
// loop: invariant words (`$c`) and the labels of pointers the loop steps (`$p = $p | $step` once per
// iteration). TurboFan's code of these loops holds more live integers than x64 has registers
// (trmm -O2's fast loop: 11 stack operands per element pair, docs/taint.md, taintregs), so this
// pass gives each chain one word `z` in their place:
//
//   z = $p | $q | $c before the loop; in it, `z = z | ($stepP | $stepQ)` at the end of every
//   iteration instead of the pointer labels' updates; after it, `$p = $p | $stepP` once.
//
// Exact, not an approximation. A pointer label is monotone: before its update in iteration t it is
// `$p0 | (t > 0 ? $stepP : 0)`, which is what z holds there; after a do-while loop (a `loop` runs its
// body at least once, and the body has no branch before its last statement) it is `$p0 | $stepP`.
// The chain's last value (the root, what the program's label store reads) is the OR of all the
// tree's leaves whichever statement ORs each in (OR is associative, commutative and idempotent);
// only the temporaries' values change, and each of those is read by its chain alone: once, in the
// iteration that wrote it, never after the loop (loop-exit-liveness.ts).
//
// It runs only when it frees registers: the pointer labels, their steps and the invariant words it
// moves must be read nowhere else in the loop, and outnumber the words it adds (one per chain, one
// per set of steps). A chain whose first link mixes invariant and varying values gathers too (its
// invariant words become one). taint-chain-joins.ts, run before it, handles chains split by calls.
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

/** Carries the invariant and pointer-label words of the label chains in each innermost loop of `func`; returns how many loops changed. */
export function carryChainWords(module: binaryen.Module, func: number): number {
  let index: LocalReads | null = null;
  return versionInnermostLoops(func, (loop) => {
    const rewritten = carryInLoop(module, func, loop, () => (index ??= indexLocalReads(func)));
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

/** A pointer label `$p = $p | $step`, updated once per iteration. */
interface Pointer {
  local: number;
  step: number;
  update: number;
}

/** One iteration of the loop body, as the analysis reads it. */
interface Iteration {
  statements: Expr[];
  /** Every read and write of a local, in evaluation order. */
  accesses: Access[];
  invariant: (local: number) => boolean;
  /** Whether the local's value when the loop ends is never read (asked only when needed). */
  deadAfter: (local: number) => boolean;
}

function carryInLoop(module: binaryen.Module, func: number, loop: Expr, liveness: () => LocalReads): Expr | null {
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
  const iteration: Iteration = {
    statements,
    accesses,
    invariant: (local) => !written.has(local),
    deadAfter: (local) => deadAfterLoop(liveness(), loop, local),
  };

  // A pointer label read by anything but chains stays in the loop, and its update is a chain
  // again: find the chains until the set of pointer labels stops changing.
  const pointers = monotonePointers(iteration);
  let chains = chainWords(iteration, pointers);
  const countReads = (): Map<number, number> => {
    const updates = new Set([...pointers.values()].map((p) => p.update));
    const counts = new Map<number, number>();
    for (const a of accesses)
      if (!a.write && !updates.has(a.statement)) counts.set(a.local, (counts.get(a.local) ?? 0) + 1);
    return counts;
  };
  const countLeaves = (): Map<number, number> => {
    const counts = new Map<number, number>();
    for (const slot of chains.flat())
      counts.set(LocalGet.getIndex(slot.expr), (counts.get(LocalGet.getIndex(slot.expr)) ?? 0) + 1);
    return counts;
  };
  let loopReads = countReads();
  let leafReads = countLeaves();
  for (;;) {
    const staying = [...pointers.keys()].filter((local) => leafReads.get(local) !== loopReads.get(local));
    if (staying.length === 0) break;
    for (const local of staying) pointers.delete(local);
    chains = chainWords(iteration, pointers);
    loopReads = countReads();
    leafReads = countLeaves();
  }
  // The words read only as chain leaves leave the loop (the pointer labels among them, by now all).
  const freed = new Set(chains.flat().map((slot) => LocalGet.getIndex(slot.expr)));
  for (const local of freed) if (leafReads.get(local) !== loopReads.get(local)) freed.delete(local);
  const carried = chains.filter((chain) => chain.some((slot) => freed.has(LocalGet.getIndex(slot.expr))));
  const stepSets = new Map<string, number[]>();
  for (const chain of carried) {
    const steps = stepsOf(chain, pointers);
    if (steps.length > 0) stepSets.set(steps.join(','), steps);
  }

  // Live across the loop before: the freed words and the pointers' steps. After: one word per
  // chain, one per set of several steps, and the steps still read on their own.
  const steps = new Set([...pointers.values()].map((p) => p.step));
  const stepsAfter = new Set([...steps].filter((step) => !freed.has(step) && loopReads.has(step)));
  for (const set of stepSets.values()) if (set.length === 1) stepsAfter.add(set[0]!);
  const before = new Set([...freed, ...steps]).size;
  const after = carried.length + [...stepSets.values()].filter((set) => set.length > 1).length + stepsAfter.size;
  if (after >= before) return null;

  const get = (local: number) => module.local.get(local, binaryen.i32);
  const orOf = (locals: number[]) => locals.slice(1).reduce((acc, l) => module.i32.or(acc, get(l)), get(locals[0]!));
  const entry: Expr[] = [];
  const stepWord = new Map<string, number>();
  for (const [key, set] of stepSets) {
    if (set.length === 1) {
      stepWord.set(key, set[0]!);
      continue;
    }
    const word = addVar(func, binaryen.i32);
    entry.push(module.local.set(word, orOf(set)));
    stepWord.set(key, word);
  }
  const carry: Expr[] = [];
  for (const chain of carried) {
    const word = addVar(func, binaryen.i32);
    entry.push(module.local.set(word, orOf([...new Set(chain.map((slot) => LocalGet.getIndex(slot.expr)))])));
    const key = stepsOf(chain, pointers).join(',');
    if (key !== '') carry.push(module.local.set(word, module.i32.or(get(word), get(stepWord.get(key)!))));
    chain.forEach((slot, k) => slot.replace(k === 0 ? get(word) : module.i32.const(0)));
  }
  const updates = new Set([...pointers.values()].map((p) => p.update));
  const kept = statements.filter((_, k) => !updates.has(k));
  const exit = [...pointers.values()].map((p) => module.local.set(p.local, module.i32.or(get(p.local), get(p.step))));
  const newBody = module.block(Block.getName(body), [...kept.slice(0, -1), ...carry, kept.at(-1)!], binaryen.none);
  return module.block(null, [...entry, module.loop(Loop.getName(loop), newBody), ...exit], binaryen.none);
}

/**
 * Per chain (a link whose value is not folded into a later link), the slots of its leaves that
 * read an invariant word or a pointer label. A link is folded into a later one when that one's
 * `i32.or` tree reads its value and nothing else does: not in the iteration, not in the next one
 * (the local is written before it is read there), not after the loop.
 */
function chainWords(iteration: Iteration, pointers: Map<number, Pointer>): ChildSlot[][] {
  const { statements, accesses, invariant } = iteration;
  const updates = new Set([...pointers.values()].map((p) => p.update));
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
  const isWord = (slot: ChildSlot) =>
    idOf(slot.expr) === Id.LocalGet &&
    (invariant(LocalGet.getIndex(slot.expr)) || pointers.has(LocalGet.getIndex(slot.expr)));
  return [...links.keys()].filter((link) => !folded.has(link)).map((link) => leavesOf(link).filter(isWord));
}

/** The distinct steps of the pointer labels among a chain's words, ascending. */
function stepsOf(chain: ChildSlot[], pointers: Map<number, Pointer>): number[] {
  const steps = new Set<number>();
  for (const slot of chain) {
    const pointer = pointers.get(LocalGet.getIndex(slot.expr));
    if (pointer) steps.add(pointer.step);
  }
  return [...steps].sort((a, b) => a - b);
}

/**
 * The pointer labels of the loop: written once per iteration, by a statement `$p = $p | $step`
 * (`$step` invariant), and read nowhere after that statement in the iteration.
 */
function monotonePointers({ statements, accesses, invariant }: Iteration): Map<number, Pointer> {
  const pointers = new Map<number, Pointer>();
  const byLocal = new Map<number, Access[]>();
  for (const a of accesses) {
    const list = byLocal.get(a.local);
    if (list) list.push(a);
    else byLocal.set(a.local, [a]);
  }
  statements.forEach((stmt, update) => {
    if (!isLink(stmt)) return;
    const local = LocalSet.getIndex(stmt);
    const value = LocalSet.getValue(stmt);
    if (idOf(value) !== Id.Binary || Binary.getOp(value) !== binaryen.OrInt32) return;
    const [left, right] = [Binary.getLeft(value), Binary.getRight(value)];
    if (idOf(left) !== Id.LocalGet || idOf(right) !== Id.LocalGet) return;
    const [a, b] = [LocalGet.getIndex(left), LocalGet.getIndex(right)];
    const step = a === local ? b : b === local ? a : null;
    if (step === null || step === local || !invariant(step)) return;
    const mine = byLocal.get(local) ?? [];
    const writes = mine.filter((x) => x.write);
    if (writes.length !== 1 || writes[0]!.expr !== stmt) return;
    if (mine.some((x) => !x.write && x.statement > update)) return;
    pointers.set(local, { local, step, update });
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

/** The leaves of the `i32.or` tree in `slot` (the slot itself when it holds no `i32.or`). */
function orLeaves(slot: ChildSlot): ChildSlot[] {
  const e = slot.expr;
  if (idOf(e) === Id.Binary && Binary.getOp(e) === binaryen.OrInt32) return childSlots(e).flatMap(orLeaves);
  return [slot];
}
