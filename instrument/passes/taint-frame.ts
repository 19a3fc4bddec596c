// The function's stack frame in linear memory: where an unoptimised build (clang -O0) keeps its
// locals, loop counters included. A slot of the frame is a local that happens to live in memory,
// so the taint pass treats it as one: a store to it does not join the control label (its value on
// this path does not depend on which branch led here), and where a branch's control dependence
// ends (its immediate post-dominator) the slots stored in between join the branch's label, as
// locals assigned in between do. Without this, `if (ranks == 1) return;` would give every later
// counter in memory the guard's label (the guard's post-dominator is the function's exit), and a
// caller's control label would enter its callee's stack stores.
//
// Frame pointers: locals assigned exactly once, from the stack-pointer global, or from another
// frame pointer plus or minus a constant (what clang emits in the prologue; flat IR).
import binaryen from 'binaryen';
import { Binary, GlobalGet, Id, Load, LocalGet, LocalSet, Store, childSlots, idOf, type Expr } from '../ir.js';

/** A store to the frame: `bytes` at `offset` (program offset) from frame pointer local `pointer`, in CFG node `node`. */
export interface FrameStore {
  pointer: number;
  offset: number;
  bytes: number;
  node: number;
}

export interface StackFrame {
  /** Locals holding a frame address. */
  pointers: Set<number>;
  stores: FrameStore[];
  /** Per slot (`pointer:offset`), the CFG nodes that load it. */
  readers: Map<string, Set<number>>;
}

const NO_FRAME: StackFrame = { pointers: new Set(), stores: [], readers: new Map() };

export const slotKey = (pointer: number, offset: number) => `${pointer}:${offset}`;

/** The stack-pointer global of a module: clang's and AssemblyScript's are named so (name section). */
export function stackPointerGlobal(module: binaryen.Module): string | null {
  for (let i = 0; i < module.getNumGlobals(); i++) {
    const info = binaryen.getGlobalInfo(module.getGlobalByIndex(i));
    if (info.mutable && info.type === binaryen.i32 && /(^|\/)__stack_pointer$/.test(info.name)) return info.name;
  }
  return null;
}

/**
 * The frame pointers and frame stores of a flat function body. `nodeOf` gives a statement's CFG
 * node, `programOffset` turns a relocated static offset into the program's own.
 */
export function stackFrame(
  body: Expr,
  params: number,
  stackPointer: string | null,
  nodeOf: Map<Expr, number>,
  programOffset: (relocated: number) => number,
): StackFrame {
  if (stackPointer === null) return NO_FRAME;
  const values = new Map<number, Expr>();
  const setCount = new Map<number, number>();
  const stores: Expr[] = [];
  const loads: Array<{ load: Expr; node: number | undefined }> = [];
  const visit = (e: Expr) => {
    const id = idOf(e);
    if (id === Id.LocalSet) {
      const index = LocalSet.getIndex(e);
      setCount.set(index, (setCount.get(index) ?? 0) + 1);
      values.set(index, LocalSet.getValue(e));
      if (idOf(LocalSet.getValue(e)) === Id.Load) loads.push({ load: LocalSet.getValue(e), node: nodeOf.get(e) });
    } else if (id === Id.Store) {
      stores.push(e);
    }
    for (const slot of childSlots(e)) visit(slot.expr);
  };
  visit(body);
  const single = (index: number) => index >= params && setCount.get(index) === 1;
  // A constant, or a local assigned once from one (through copies: flattening adds them).
  const constantLocal = (e: Expr, depth = 0): boolean =>
    idOf(e) === Id.Const ||
    (depth < 8 &&
      idOf(e) === Id.LocalGet &&
      single(LocalGet.getIndex(e)) &&
      constantLocal(values.get(LocalGet.getIndex(e))!, depth + 1));
  const pointers = new Set<number>();
  let grew = true;
  const isPointer = (e: Expr) => idOf(e) === Id.LocalGet && pointers.has(LocalGet.getIndex(e));
  while (grew) {
    grew = false;
    for (const [index, value] of values) {
      if (pointers.has(index) || !single(index)) continue;
      const id = idOf(value);
      let frame = false;
      if (id === Id.GlobalGet) frame = GlobalGet.getName(value) === stackPointer;
      else if (id === Id.LocalGet) frame = isPointer(value);
      else if (id === Id.Binary) {
        const op = Binary.getOp(value);
        const [left, right] = [Binary.getLeft(value), Binary.getRight(value)];
        frame =
          (op === binaryen.AddInt32 &&
            ((isPointer(left) && constantLocal(right)) || (constantLocal(left) && isPointer(right)))) ||
          (op === binaryen.SubInt32 && isPointer(left) && constantLocal(right));
      }
      if (frame) {
        pointers.add(index);
        grew = true;
      }
    }
  }
  if (pointers.size === 0) return NO_FRAME;
  const frameStores: FrameStore[] = [];
  for (const store of stores) {
    const ptr = Store.getPtr(store);
    const node = nodeOf.get(store);
    if (node === undefined || !isPointer(ptr)) continue;
    frameStores.push({
      pointer: LocalGet.getIndex(ptr),
      offset: programOffset(Store.getOffset(store)),
      bytes: Store.getBytes(store),
      node,
    });
  }
  const readers = new Map<string, Set<number>>();
  for (const { load, node } of loads) {
    const ptr = Load.getPtr(load);
    if (node === undefined || !isPointer(ptr)) continue;
    const key = slotKey(LocalGet.getIndex(ptr), programOffset(Load.getOffset(load)));
    readers.set(key, (readers.get(key) ?? new Set()).add(node));
  }
  return { pointers, stores: frameStores, readers };
}
