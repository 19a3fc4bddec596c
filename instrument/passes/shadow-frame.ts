// Frame labels in locals: with the word shadow, the labels of a function's stack-frame words (clang
// -O0 keeps every local and loop counter there, taint-frame.ts) live in Wasm locals instead of
// shadow memory, when nothing but the function's own frame-pointer accesses can reach the frame.
// An -O0 loop reads its counters, bounds and array pointers from the frame on every iteration;
// each of those reads was a label load with an alignment check, each write a label store.
//
// The locals follow the word shadow exactly (a 4- or 8-byte store replaces its words' labels, a
// narrower one ORs into its word, a load joins the words it touches), so labels, reports and the
// shadow seen by other code are what they were:
//   - a word that may be read (or ORed into) before the function has written it whole, on some
//     path, or whose value at an exit may be the one it had at entry, is loaded from the shadow
//     right after the frame's root (the stack pointer at entry) is read;
//   - at the function's exit every word it stored is written back to the shadow, so later frames
//     at the same addresses read what they read before (stale labels of dead slots included).
// What it needs (else the function keeps shadow accesses): one read of the stack-pointer global,
// into a local assigned once at the top level of the body before any branch, call or memory
// access; every frame pointer (taint-frame.ts) assigned once at the top level; every use of one
// is the address of a plain load or store, a write of the stack pointer, or the definition of
// another frame pointer (no address of the frame escapes); every access lies within one word or
// covers whole words (relative to the root); a function with calls moves the stack pointer below
// its frame. The root is assumed word-aligned, as clang's ABI keeps it (16 bytes).
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Const,
  GlobalGet,
  GlobalSet,
  Id,
  If,
  Load,
  LocalGet,
  LocalSet,
  Loop,
  Store,
  addVar,
  childSlots,
  idOf,
  type Expr,
} from '../ir.js';
import type { ShadowCodegen, ShadowMemory } from './shadow-memory.js';

/** Frames larger than this keep their labels in shadow memory (a local per word, a write-back per word). */
const MAX_FRAME_WORDS = 256;

export interface FrameLabels {
  /** The local holding the stack pointer read at entry (the frame's root). */
  root: number;
  /** The `local.set` of the root: the words read before being written are loaded right after it. */
  rootSet: Expr;
  /** Frame pointer local → its byte offset from the root. */
  delta: Map<number, number>;
  /** Word index (from the root, negative below it) → the local holding its label. */
  words: Map<number, number>;
  /** Words loaded from the shadow after the root is read. */
  initialized: number[];
  /** Words the function writes: written back to the shadow at its exit. */
  stored: number[];
}

/**
 * The frame-label plan of a flat function body, or null when its frame must stay in shadow memory.
 * `pointers` are its frame pointers (taint-frame.ts); `programOffset` turns a relocated static
 * offset into the program's own; `initAll`: every stored word is loaded at entry (implicit flow
 * ORs branch labels into slots at post-dominators, reads this analysis does not see).
 */
export function planFrameLabels(
  func: number,
  body: Expr,
  pointers: ReadonlySet<number>,
  stackPointer: string,
  programOffset: (relocated: number) => number,
  initAll: boolean,
): FrameLabels | null {
  if (pointers.size === 0) return null;
  const rootSet = entryRead(body, stackPointer);
  if (rootSet === null || !pointers.has(LocalSet.getIndex(rootSet))) return null;
  const constantOf = constants(body);
  const delta = new Map<number, number>();
  const wordsRead = new Set<number>();
  const stored = new Set<number>();
  const needsInit = new Set<number>();
  const exits: Array<Set<number>> = [];
  let movesStackPointer = false;
  let calls = false;
  let refused = false;

  // Scope: the frame pointers certainly assigned, and the words certainly written whole, on every
  // path to the current point. An unnamed block always runs to its end (nothing branches to it),
  // so what it establishes holds after it; a named block, a loop or an arm starts from a copy.
  interface Scope {
    defined: Set<number>;
    written: Set<number>;
  }
  const copy = (scope: Scope): Scope => ({ defined: new Set(scope.defined), written: new Set(scope.written) });
  const isPointer = (e: Expr) => idOf(e) === Id.LocalGet && pointers.has(LocalGet.getIndex(e));
  const pointerIn = (e: Expr, scope: Scope): number | null => {
    const local = LocalGet.getIndex(e);
    if (!scope.defined.has(local)) refused = true;
    return local;
  };
  const wordsOf = (pointer: number, relocated: number, bytes: number): number[] => {
    const start = delta.get(pointer)! + programOffset(relocated);
    const within = start - 4 * Math.floor(start / 4);
    if (bytes >= 4 ? within !== 0 || bytes % 4 !== 0 || bytes > 8 : within + bytes > 4) refused = true;
    const first = Math.floor(start / 4);
    return Array.from({ length: Math.max(1, bytes / 4) }, (_, k) => first + k);
  };
  const read = (words: number[], scope: Scope) => {
    for (const w of words) {
      wordsRead.add(w);
      if (!scope.written.has(w)) needsInit.add(w);
    }
  };
  const definePointer = (local: number, value: Expr, scope: Scope) => {
    const id = idOf(value);
    let d: number | null = null;
    if (id === Id.GlobalGet)
      d = GlobalGet.getName(value) === stackPointer && value === LocalSet.getValue(rootSet) ? 0 : null;
    else if (id === Id.LocalGet && isPointer(value)) d = delta.get(pointerIn(value, scope)!) ?? null;
    else if (id === Id.Binary) {
      const [left, right] = [Binary.getLeft(value), Binary.getRight(value)];
      const add = Binary.getOp(value) === binaryen.AddInt32;
      if (!add && Binary.getOp(value) !== binaryen.SubInt32) d = null;
      else if (isPointer(left) && constantOf(right) !== null) {
        const base = delta.get(pointerIn(left, scope)!);
        d = base === undefined ? null : add ? base + constantOf(right)! : base - constantOf(right)!;
      } else if (add && isPointer(right) && constantOf(left) !== null) {
        const base = delta.get(pointerIn(right, scope)!);
        d = base === undefined ? null : base + constantOf(left)!;
      }
    }
    if (d === null) refused = true;
    else delta.set(local, d);
    scope.defined.add(local);
  };
  const scan = (e: Expr, scope: Scope): void => {
    if (refused) return;
    const id = idOf(e);
    if (id === Id.Block) {
      const inner = Block.getName(e) ? copy(scope) : scope;
      for (let k = 0; k < Block.getNumChildren(e); k++) scan(Block.getChildAt(e, k), inner);
      return;
    }
    if (id === Id.Loop) return scan(Loop.getBody(e), copy(scope));
    if (id === Id.If) {
      scan(If.getCondition(e), scope);
      scan(If.getIfTrue(e), copy(scope));
      const otherwise = If.getIfFalse(e);
      if (otherwise) scan(otherwise, copy(scope));
      return;
    }
    if (id === Id.LocalSet && pointers.has(LocalSet.getIndex(e))) {
      if (scope.defined.has(LocalSet.getIndex(e))) refused = true;
      return definePointer(LocalSet.getIndex(e), LocalSet.getValue(e), scope);
    }
    if (id === Id.Load && isPointer(Load.getPtr(e))) {
      const pointer = pointerIn(Load.getPtr(e), scope)!;
      if (Load.isAtomic(e)) refused = true;
      if (!refused) read(wordsOf(pointer, Load.getOffset(e), Load.getBytes(e)), scope);
      return;
    }
    if (id === Id.Store && isPointer(Store.getPtr(e))) {
      scan(Store.getValue(e), scope);
      const pointer = pointerIn(Store.getPtr(e), scope)!;
      if (Store.isAtomic(e)) refused = true;
      if (refused) return;
      const words = wordsOf(pointer, Store.getOffset(e), Store.getBytes(e));
      for (const w of words) stored.add(w);
      // A narrower store ORs into its word: it reads it.
      if (Store.getBytes(e) < 4) read(words, scope);
      else for (const w of words) scope.written.add(w);
      return;
    }
    if (id === Id.GlobalSet && GlobalSet.getName(e) === stackPointer) {
      if (isPointer(GlobalSet.getValue(e))) {
        pointerIn(GlobalSet.getValue(e), scope);
        movesStackPointer = true;
      } else refused = true;
      return;
    }
    // The root's is the only read of the stack pointer (another frame, an alloca, would be unknown),
    // and a frame pointer anywhere else lets the frame's address escape.
    if ((id === Id.GlobalGet && GlobalGet.getName(e) === stackPointer) || isPointer(e)) {
      refused = true;
      return;
    }
    if (id === Id.Call || id === Id.CallIndirect) calls = true;
    if (id === Id.Return) exits.push(new Set(scope.written));
    for (const slot of childSlots(e)) scan(slot.expr, scope);
  };
  const entry: Scope = { defined: new Set(), written: new Set() };
  scan(body, entry);
  if (refused || (calls && !movesStackPointer)) return null;
  const allWords = new Set([...wordsRead, ...stored]);
  if (allWords.size === 0 || allWords.size > MAX_FRAME_WORDS) return null;
  // Falling off the body's end (a body block with a name may be left by a branch: nothing certain).
  exits.push(idOf(body) === Id.Block && Block.getName(body) ? new Set() : entry.written);
  // A stored word is written back at every exit: where it may not have been written, its entry label.
  for (const exit of exits) for (const w of stored) if (!exit.has(w)) needsInit.add(w);
  if (initAll) for (const w of stored) needsInit.add(w);

  const words = new Map<number, number>();
  for (const w of [...allWords].sort((a, b) => a - b)) words.set(w, addVar(func, binaryen.i32));
  return {
    root: LocalSet.getIndex(rootSet),
    rootSet,
    delta,
    words,
    initialized: [...needsInit].sort((a, b) => a - b),
    stored: [...stored].sort((a, b) => a - b),
  };
}

/**
 * The function's first read of the stack pointer into a local, when it is among the statements
 * that run first on every call (unnamed blocks are sequences) and nothing before it branches,
 * calls or touches memory.
 */
function entryRead(body: Expr, stackPointer: string): Expr | null {
  const pending: Expr[] = [body];
  while (pending.length > 0) {
    const s = pending.shift()!;
    if (idOf(s) === Id.Block && !Block.getName(s)) {
      pending.unshift(...Array.from({ length: Block.getNumChildren(s) }, (_, k) => Block.getChildAt(s, k)));
      continue;
    }
    if (
      idOf(s) === Id.LocalSet &&
      idOf(LocalSet.getValue(s)) === Id.GlobalGet &&
      GlobalGet.getName(LocalSet.getValue(s)) === stackPointer
    )
      return s;
    if (!straightLine(s)) return null;
  }
  return null;
}

/** A statement with no control flow, call or memory access (it cannot leave the function or trap on memory). */
function straightLine(s: Expr): boolean {
  const id = idOf(s);
  if (
    id === Id.Block ||
    id === Id.Loop ||
    id === Id.If ||
    id === Id.Break ||
    id === Id.Switch ||
    id === Id.Return ||
    id === Id.Call ||
    id === Id.CallIndirect ||
    id === Id.Load ||
    id === Id.Store ||
    id === Id.Unreachable
  )
    return false;
  return childSlots(s).every((slot) => straightLine(slot.expr));
}

/** The i32 constant an operand holds: a constant, or a local assigned once from one (flattening's copies). */
function constants(body: Expr): (e: Expr) => number | null {
  const sets = new Map<number, Expr[]>();
  const visit = (e: Expr) => {
    if (idOf(e) === Id.LocalSet) {
      const list = sets.get(LocalSet.getIndex(e)) ?? [];
      list.push(LocalSet.getValue(e));
      sets.set(LocalSet.getIndex(e), list);
    }
    for (const slot of childSlots(e)) visit(slot.expr);
  };
  visit(body);
  const valueOf = (e: Expr, depth: number): number | null => {
    const id = idOf(e);
    if (id === Id.Const) return binaryen.getExpressionType(e) === binaryen.i32 ? Const.getValueI32(e) : null;
    if (id !== Id.LocalGet || depth > 8) return null;
    const values = sets.get(LocalGet.getIndex(e));
    return values?.length === 1 ? valueOf(values[0]!, depth + 1) : null;
  };
  return (e) => valueOf(e, 0);
}

/** The word locals of the bytes [start, start + bytes) relative to the root. */
function wordLocals(frame: FrameLabels, pointer: number, offset: number, bytes: number): number[] {
  const start = frame.delta.get(pointer)! + offset;
  const first = Math.floor(start / 4);
  return Array.from({ length: Math.max(1, bytes / 4) }, (_, k) => frame.words.get(first + k)!);
}

/** The label of a frame load: the join of the words it reads. */
export function frameLoadLabel(
  g: ShadowCodegen,
  frame: FrameLabels,
  pointer: number,
  offset: number,
  bytes: number,
): Expr {
  const { module } = g;
  return wordLocals(frame, pointer, offset, bytes)
    .map((w) => module.local.get(w, binaryen.i32))
    .reduce((a, b) => module.i32.or(a, b));
}

/** After a frame store of `label`: whole words take it, a narrower store ORs it into its word. */
export function frameStoreLabel(
  g: ShadowCodegen,
  frame: FrameLabels,
  pointer: number,
  offset: number,
  bytes: number,
  label: Expr,
): Expr[] {
  const { module } = g;
  const i32 = binaryen.i32;
  const [first, ...rest] = wordLocals(frame, pointer, offset, bytes);
  if (bytes < 4) return [module.local.set(first!, module.i32.or(module.local.get(first!, i32), label))];
  return [module.local.set(first!, label), ...rest.map((w) => module.local.set(w, module.local.get(first!, i32)))];
}

/** Right after the root's read: the entry labels of the words that need them. */
export function frameEntry(g: ShadowCodegen, shadow: ShadowMemory, frame: FrameLabels): Expr[] {
  const { module } = g;
  return frame.initialized.map((w) =>
    module.local.set(frame.words.get(w)!, shadow.load(g, module.local.get(frame.root, binaryen.i32), 4 * w, 4)),
  );
}

/** At the function's exit: the stored words' labels back into the shadow. */
export function frameExit(g: ShadowCodegen, shadow: ShadowMemory, frame: FrameLabels): Expr[] {
  const { module } = g;
  return frame.stored.flatMap((w) =>
    shadow.store(
      g,
      module.local.get(frame.root, binaryen.i32),
      4 * w,
      4,
      module.local.get(frame.words.get(w)!, binaryen.i32),
    ),
  );
}
