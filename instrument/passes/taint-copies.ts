// Copy propagation over a taint-instrumented function. Flattening leaves a copy per value
// (`local.set $t (local.get $x)`) and shadow code copies labels the same way; Binaryen's
// coalesce-locals merges only copies whose live ranges do not overlap. Here a read of a copy is
// rewritten to read its source while both still hold the same value, in straight-line code (facts
// flow into blocks and `if` arms, and into loops when the loop writes neither local; they are
// dropped at the end of any construct a branch can reach), so the copy becomes dead and is dropped.
// Only `local.get` indices change: no value is recomputed or moved, so no trap, NaN bit or effect
// order of the program changes.
import binaryen from 'binaryen';
import type { ShadowMemory } from './shadow-memory.js';
import { TRAPPING_TRUNCATIONS } from '../control-plan.js';
import {
  Binary,
  Block,
  Func,
  Id,
  If,
  LocalGet,
  LocalSet,
  Loop,
  Unary,
  UnsupportedExpression,
  childSlots,
  children,
  idOf,
  typeOf,
  walkPostOrder,
  type Expr,
} from '../ir.js';

const COPYABLE = new Set<number>([binaryen.i32, binaryen.i64, binaryen.f32, binaryen.f64]);

/** Which locals currently hold the same value as another local (`copyOf[a] = b`), with the reverse index. */
class CopyFacts {
  private readonly copyOf = new Map<number, number>();
  private readonly copiesFrom = new Map<number, Set<number>>();

  sourceOf(local: number): number | undefined {
    return this.copyOf.get(local);
  }

  /** `local` was written: it no longer copies anything, and nothing copies it. */
  kill(local: number): void {
    const source = this.copyOf.get(local);
    if (source !== undefined) {
      this.copyOf.delete(local);
      this.copiesFrom.get(source)?.delete(local);
    }
    const copies = this.copiesFrom.get(local);
    if (copies) {
      for (const copy of copies) this.copyOf.delete(copy);
      this.copiesFrom.delete(local);
    }
  }

  record(copy: number, source: number): void {
    this.copyOf.set(copy, source);
    let copies = this.copiesFrom.get(source);
    if (!copies) this.copiesFrom.set(source, (copies = new Set()));
    copies.add(copy);
  }

  get size(): number {
    return this.copyOf.size;
  }

  clear(): void {
    this.copyOf.clear();
    this.copiesFrom.clear();
  }

  snapshot(): Array<[number, number]> {
    return [...this.copyOf];
  }

  restore(pairs: Array<[number, number]>): void {
    this.clear();
    for (const [copy, source] of pairs) this.record(copy, source);
  }
}

const MAX_FACTS_PER_ARM = 256;

function writtenLocals(root: Expr): Set<number> {
  const written = new Set<number>();
  walkPostOrder(root, (expr) => {
    if (idOf(expr) === Id.LocalSet) written.add(LocalSet.getIndex(expr));
  });
  return written;
}

function propagate(expr: Expr, facts: CopyFacts): void {
  const id = idOf(expr);
  if (id === Id.LocalGet) {
    const source = facts.sourceOf(LocalGet.getIndex(expr));
    if (source !== undefined) LocalGet.setIndex(expr, source);
    return;
  }
  if (id === Id.LocalSet) {
    const value = LocalSet.getValue(expr);
    propagate(value, facts);
    const local = LocalSet.getIndex(expr);
    facts.kill(local);
    if (idOf(value) === Id.LocalGet && COPYABLE.has(typeOf(value))) {
      const source = LocalGet.getIndex(value);
      if (source !== local) facts.record(local, source);
    }
    return;
  }
  if (id === Id.Loop) {
    // Back edges reach the header with whatever the body left: only copies the loop writes neither side of stay.
    const written = writtenLocals(expr);
    const entry = facts.snapshot().filter(([copy, source]) => !written.has(copy) && !written.has(source));
    facts.restore(entry);
    propagate(Loop.getBody(expr), facts);
    facts.restore(entry);
    return;
  }
  if (id === Id.If) {
    propagate(If.getCondition(expr), facts);
    // Each arm starts from the facts before it: past this many, start both from none (keeps it linear).
    if (facts.size > MAX_FACTS_PER_ARM) facts.clear();
    const before = facts.snapshot();
    propagate(If.getIfTrue(expr), facts);
    const ifFalse = If.getIfFalse(expr);
    if (ifFalse) {
      facts.restore(before);
      propagate(ifFalse, facts);
    }
    facts.clear();
    return;
  }
  for (const child of children(expr)) propagate(child, facts);
  // A named block's end is also reached by branches, with other facts.
  if (id === Id.Block && Block.getName(expr)) facts.clear();
}

/** Replaces copies into locals nothing reads by nops (before versioning, which would otherwise check them at loop entry). */
function dropDeadCopies(module: binaryen.Module, root: Expr): void {
  const reads = new Set<number>();
  walkPostOrder(root, (expr) => {
    if (idOf(expr) === Id.LocalGet) reads.add(LocalGet.getIndex(expr));
  });
  const stack = [root];
  while (stack.length > 0) {
    const expr = stack.pop()!;
    for (const slot of childSlots(expr)) {
      const child = slot.expr;
      const deadCopy =
        idOf(child) === Id.LocalSet &&
        !LocalSet.isTee(child) &&
        !reads.has(LocalSet.getIndex(child)) &&
        idOf(LocalSet.getValue(child)) === Id.LocalGet;
      if (deadCopy) slot.replace(module.nop());
      else stack.push(child);
    }
  }
}

/**
 * Rewrites reads of copies to read their sources in `func` and drops the copies left unread;
 * stops early on code it cannot walk (every rewrite made so far stays valid).
 */
export function propagateCopies(module: binaryen.Module, func: number): void {
  try {
    propagate(Func.getBody(func), new CopyFacts());
    dropDeadCopies(module, Func.getBody(func));
  } catch (error) {
    if (!(error instanceof RangeError) && !(error instanceof UnsupportedExpression)) throw error;
  }
}

// Operators that can trap: an expression holding one must not move past another trap.
const TRAPPING_OPS = new Set<number>([
  ...['DivSInt32', 'DivUInt32', 'RemSInt32', 'RemUInt32', 'DivSInt64', 'DivUInt64', 'RemSInt64', 'RemUInt64'].map(
    (name) => (binaryen as unknown as Record<string, number>)[name]!,
  ),
  ...TRAPPING_TRUNCATIONS,
]);

/** What the code a value moves past must not touch. */
interface Moved {
  reads: Set<number>;
  writes: Set<number>;
}

// Kinds a moved value may hold: it reads memory, globals and locals and may trap, but writes
// nothing but locals (a `local.tee`), so it commutes with code that neither traps nor writes.
const MOVABLE = new Set<number>([
  Id.LocalGet,
  Id.LocalSet,
  Id.Const,
  Id.Unary,
  Id.Binary,
  Id.Select,
  Id.Load,
  Id.GlobalGet,
]);

/** The locals `expr` reads and writes. */
function localsOf(expr: Expr): Moved {
  const moved: Moved = { reads: new Set(), writes: new Set() };
  walkPostOrder(expr, (e) => {
    const id = idOf(e);
    if (id === Id.LocalGet) moved.reads.add(LocalGet.getIndex(e));
    else if (id === Id.LocalSet) moved.writes.add(LocalSet.getIndex(e));
  });
  return moved;
}

/** The locals `expr` reads and writes, or null if it holds anything but MOVABLE kinds. */
function movedOf(expr: Expr): Moved | null {
  let movable = true;
  walkPostOrder(expr, (e) => {
    if (!MOVABLE.has(idOf(e))) movable = false;
  });
  return movable ? localsOf(expr) : null;
}

const disjoint = (a: Set<number>, b: Set<number>) => ![...a].some((x) => b.has(x));

/**
 * Whether a moved value can be evaluated after `expr` instead of before it: `expr` neither traps
 * nor writes anything but locals the value does not read, and reads no local the value writes.
 * A label load counts as inert: it follows the program's own access of the same address, which
 * traps first (shadow-memory.ts).
 */
function passable(expr: Expr, value: Moved, shadow: ShadowMemory): boolean {
  let ok = true;
  const visit = (e: Expr): void => {
    if (!ok) return;
    const id = idOf(e);
    if (shadow.isLabelLoad(e)) {
      const inner = localsOf(e);
      if (!disjoint(inner.writes, value.reads) || !disjoint(inner.reads, value.writes)) ok = false;
      return;
    }
    for (const child of children(e)) visit(child);
    if (id === Id.LocalGet) ok &&= !value.writes.has(LocalGet.getIndex(e));
    else if (id === Id.Unary) ok &&= !TRAPPING_OPS.has(Unary.getOp(e));
    else if (id === Id.Binary) ok &&= !TRAPPING_OPS.has(Binary.getOp(e));
    else if (id === Id.LocalSet) ok &&= !value.reads.has(LocalSet.getIndex(e));
    else ok &&= id === Id.Const || id === Id.Select || id === Id.Nop;
  };
  visit(expr);
  return ok;
}

type Search = 'found' | 'continue' | 'stop';

/**
 * Puts `value` in place of the read of `local` in `stmt` if everything `stmt` evaluates before
 * that read is passable (see passable): moving `value` there changes no order of effects or
 * traps and no value read.
 */
function substitute(stmt: Expr, local: number, value: Expr, moved: Moved, shadow: ShadowMemory): boolean {
  const search = (expr: Expr): Search => {
    const id = idOf(expr);
    if (id === Id.LocalGet && LocalGet.getIndex(expr) === local) return 'found';
    if (id === Id.Block || id === Id.Loop) return 'stop';
    if (shadow.isLabelLoad(expr)) return passable(expr, moved, shadow) ? 'continue' : 'stop';
    const slots = id === Id.If ? childSlots(expr).slice(0, 1) : childSlots(expr);
    for (const slot of slots) {
      const result = search(slot.expr);
      if (result === 'found' && idOf(slot.expr) === Id.LocalGet) {
        slot.replace(value);
        return 'found';
      }
      if (result !== 'continue') return result;
    }
    if (id === Id.If) return 'stop';
    // The node itself runs after its operands: it must be passable too.
    if (id === Id.LocalGet) return moved.writes.has(LocalGet.getIndex(expr)) ? 'stop' : 'continue';
    if (id === Id.LocalSet) return moved.reads.has(LocalSet.getIndex(expr)) ? 'stop' : 'continue';
    if (id === Id.Unary) return TRAPPING_OPS.has(Unary.getOp(expr)) ? 'stop' : 'continue';
    if (id === Id.Binary) return TRAPPING_OPS.has(Binary.getOp(expr)) ? 'stop' : 'continue';
    return id === Id.Const || id === Id.Select ? 'continue' : 'stop';
  };
  if (idOf(stmt) === Id.LocalGet) return false;
  return search(stmt) === 'found';
}

/** How many earlier statements a value may move past: keeps the pass linear. */
const SINK_WINDOW = 8;

/** The local a statement `local.set $t X` defines if `$t` is read exactly once in the function. */
function singleReadSet(stmt: Expr, reads: Map<number, number>): number | null {
  if (idOf(stmt) !== Id.LocalSet || LocalSet.isTee(stmt)) return null;
  const local = LocalSet.getIndex(stmt);
  return reads.get(local) === 1 && COPYABLE.has(typeOf(LocalSet.getValue(stmt))) ? local : null;
}

/**
 * Moves each `local.set $t X` whose `$t` is read once, by a later statement of the same block,
 * into that read (flattening's temporaries back into expression trees), where X only moves past
 * passable code (up to SINK_WINDOW statements). `reads` counts the reads of each local.
 * A statement waiting in `kept` never changes (only the statement being read into does), so what
 * a candidate's value touches and which kept statements it may pass are computed once.
 */
function sinkBlock(module: binaryen.Module, block: Expr, reads: Map<number, number>, shadow: ShadowMemory): void {
  const count = Block.getNumChildren(block);
  const kept: number[] = [];
  const movedOfCandidate = new Map<Expr, Moved | null>();
  const passes = new Map<Expr, Map<Expr, boolean>>();
  const passableFor = (candidate: Expr, moved: Moved, stmt: Expr): boolean => {
    let known = passes.get(candidate);
    if (!known) passes.set(candidate, (known = new Map()));
    let ok = known.get(stmt);
    if (ok === undefined) known.set(stmt, (ok = passable(stmt, moved, shadow)));
    return ok;
  };
  for (let i = 0; i < count; i++) {
    const stmt = Block.getChildAt(block, i);
    if (idOf(stmt) === Id.Nop) continue;
    let readHere: Set<number> | null = null;
    let back = kept.length - 1;
    while (back >= 0 && back >= kept.length - SINK_WINDOW) {
      const index = kept[back]!;
      const candidate = Block.getChildAt(block, index);
      const local = singleReadSet(candidate, reads);
      if (local !== null) readHere ??= localsOf(stmt).reads;
      if (local !== null && readHere!.has(local)) {
        const value = LocalSet.getValue(candidate);
        let moved = movedOfCandidate.get(candidate);
        if (moved === undefined) movedOfCandidate.set(candidate, (moved = movedOf(value)));
        let clear = moved !== null;
        for (let k = back + 1; clear && k < kept.length; k++)
          clear = passableFor(candidate, moved!, Block.getChildAt(block, kept[k]!));
        if (clear && substitute(stmt, local, value, moved!, shadow)) {
          reads.set(local, 0);
          Block.setChildAt(block, index, module.nop());
          kept.splice(back, 1);
          back = kept.length - 1;
          readHere = null;
          continue;
        }
      }
      back--;
    }
    kept.push(i);
  }
}

/** Sinks single-read temporaries into their readers in every block of `func` (see sinkBlock). */
export function sinkTemporaries(module: binaryen.Module, func: number, shadow: ShadowMemory): void {
  const body = Func.getBody(func);
  const reads = new Map<number, number>();
  const blocks: Expr[] = [];
  walkPostOrder(body, (expr) => {
    const id = idOf(expr);
    if (id === Id.LocalGet) reads.set(LocalGet.getIndex(expr), (reads.get(LocalGet.getIndex(expr)) ?? 0) + 1);
    else if (id === Id.Block) blocks.push(expr);
  });
  for (const block of blocks) sinkBlock(module, block, reads, shadow);
}
