// The stack-frame slots of an unoptimised function, for the static trip counts (static-trips.ts).
// clang -O0 keeps every local, loop counters included, in the function's frame in linear memory,
// addressed from a frame pointer: a local assigned once from the stack-pointer global, or from
// another frame pointer plus or minus a constant. A load or store at a constant offset from a frame
// pointer is a slot; a slot every access of which has the same width and type (a full i32 or i64,
// say) and that no other access overlaps behaves as a local, so the abstract execution can follow
// `for (int i = 0; i < 10; i++)` with `i` in memory as it follows it in a register.
//
// A frame address computed in place (`frame + c` as an access's address rather than a memarg
// offset) is the same slot as the offset. A frame address escapes when it is used other than as
// the address of a frame access, to derive another frame pointer, to restore the stack pointer
// (clang's epilogue, `frame + 80` included) or as the base of an indexed access — `&i` passed to a
// call or stored: then a call or a store through another pointer may write any slot, so those
// clobber every slot. An indexed access (`frame + c + x` used as a load or store address: a local
// array `a[i]`) does not let the address out: a call or another pointer still cannot reach the
// frame. An indexed store writes the frame at `c + x`: the abstract execution forgets the slots it
// overlaps when x is known there (`for (i = 0; i < 4; i++) a[i] = …` keeps `i`), every slot when
// it is not.
// A function that reads the stack pointer into more than one frame pointer root (alloca) has no
// slots: two roots could address the same bytes.
import binaryen from 'binaryen';
import {
  Binary,
  Const,
  GlobalGet,
  GlobalSet,
  Id,
  Load,
  LocalGet,
  LocalSet,
  Store,
  childSlots,
  idOf,
  typeOf,
  type Expr,
} from './ir.js';

/** A store at `frame + at + index` (the frame address relative to the root, plus the memarg offset). */
export interface IndexedStore {
  at: number;
  /** The frame-address operand of the address's add, and the index operand, in evaluation order. */
  base: Expr;
  index: Expr;
  indexFirst: boolean;
}

export interface FrameSlots {
  /** The slot (0-based) of each load and store of a tracked slot. */
  slotOf: Map<Expr, number>;
  /** Each tracked slot's frame address (relative to the root) and width. */
  slots: Array<{ address: number; bytes: number }>;
  /** Stores through an indexed frame address (a local array). */
  indexed: Map<Expr, IndexedStore>;
  /**
   * Loads and stores that neither read nor write a tracked slot: frame accesses that are not
   * tracked slots, and accesses at a constant address (a C global, never in the frame).
   */
  untracked: Set<Expr>;
  count: number;
  /** A frame address escapes: calls and stores through other pointers may write the frame. */
  escapes: boolean;
}

const plus = (at: number | undefined, c: number) => (at === undefined ? undefined : (at + c) | 0);

/** The load or store API of a memory access. */
const accessApi = (e: Expr) => (idOf(e) === Id.Store ? Store : Load);

const NONE: FrameSlots = {
  slotOf: new Map(),
  slots: [],
  indexed: new Map(),
  untracked: new Set(),
  count: 0,
  escapes: false,
};

interface Access {
  expr: Expr;
  address: number;
  bytes: number;
  type: number;
  /** A load that reads fewer bytes than its type (sign or zero extension) or an atomic access. */
  partial: boolean;
}

/** The frame slots of a function body (original, unflattened IR; `params` locals are parameters). */
export function frameSlots(body: Expr, params: number, stackPointer: string | null): FrameSlots {
  if (stackPointer === null) return NONE;
  const setCount = new Map<number, number>();
  const valueOf = new Map<number, Expr>();
  const uses: Array<{ get: Expr; parent: Expr | null }> = [];
  const accesses: Expr[] = [];
  const restores: Expr[] = [];
  const visit = (e: Expr, parent: Expr | null) => {
    const id = idOf(e);
    if (id === Id.LocalSet) {
      const index = LocalSet.getIndex(e);
      setCount.set(index, (setCount.get(index) ?? 0) + 1);
      valueOf.set(index, LocalSet.getValue(e));
    } else if (id === Id.LocalGet) uses.push({ get: e, parent });
    else if (id === Id.Load || id === Id.Store) accesses.push(e);
    else if (id === Id.GlobalSet && GlobalSet.getName(e) === stackPointer) restores.push(GlobalSet.getValue(e));
    for (const slot of childSlots(e)) visit(slot.expr, e);
  };
  visit(body, null);
  const single = (index: number) => index >= params && setCount.get(index) === 1;
  const constant = (e: Expr, depth = 0): number | null => {
    if (idOf(e) === Id.Const) return typeOf(e) === binaryen.i32 ? Const.getValueI32(e) | 0 : null;
    if (depth < 8 && idOf(e) === Id.LocalGet && single(LocalGet.getIndex(e)))
      return constant(valueOf.get(LocalGet.getIndex(e))!, depth + 1);
    return null;
  };
  // Frame pointers: local → its address relative to the one root (the stack pointer when read).
  const delta = new Map<number, number>();
  const pointerOf = (e: Expr) => (idOf(e) === Id.LocalGet ? delta.get(LocalGet.getIndex(e)) : undefined);
  // The stack pointer read where a frame pointer is defined (`local.tee $fp (i32.sub (global.get
  // $__stack_pointer) (i32.const 32))` in clang's prologue) is the root, counted once per read.
  let roots = 0;
  const baseOf = (e: Expr): number | undefined =>
    idOf(e) === Id.GlobalGet && GlobalGet.getName(e) === stackPointer ? 0 : pointerOf(e);
  const readsStackPointer = (e: Expr) => idOf(e) === Id.GlobalGet && GlobalGet.getName(e) === stackPointer;
  for (let grew = true; grew;) {
    grew = false;
    for (const [index, value] of valueOf) {
      if (delta.has(index) || !single(index)) continue;
      const id = idOf(value);
      let at: number | undefined;
      if (id === Id.GlobalGet || id === Id.LocalGet) at = baseOf(value);
      else if (id === Id.Binary) {
        const op = Binary.getOp(value);
        const [left, right] = [Binary.getLeft(value), Binary.getRight(value)];
        const [pl, pr, cl, cr] = [baseOf(left), baseOf(right), constant(left), constant(right)];
        if (op === binaryen.AddInt32 && pl !== undefined && cr !== null) at = pl + cr;
        else if (op === binaryen.AddInt32 && cl !== null && pr !== undefined) at = cl + pr;
        else if (op === binaryen.SubInt32 && pl !== undefined && cr !== null) at = pl - cr;
        if (at !== undefined && (readsStackPointer(left) || readsStackPointer(right))) roots++;
      }
      if (at !== undefined) {
        if (readsStackPointer(value)) roots++;
        delta.set(index, at);
        grew = true;
      }
    }
  }
  if (delta.size === 0 || roots !== 1) return NONE;
  // A frame address: a frame pointer, a copy of one being made (`local.tee`), or one plus or minus a constant.
  const frameAddress = (e: Expr, depth = 0): number | undefined => {
    const id = idOf(e);
    if (id === Id.LocalGet) return pointerOf(e);
    if (id === Id.LocalSet) return LocalSet.isTee(e) ? delta.get(LocalSet.getIndex(e)) : undefined;
    if (id !== Id.Binary || depth >= 4) return undefined;
    const op = Binary.getOp(e);
    const [left, right] = [Binary.getLeft(e), Binary.getRight(e)];
    if (op === binaryen.AddInt32) {
      const [cl, cr] = [constant(left), constant(right)];
      if (cr !== null) return plus(frameAddress(left, depth + 1), cr);
      if (cl !== null) return plus(frameAddress(right, depth + 1), cl);
    } else if (op === binaryen.SubInt32) {
      const cr = constant(right);
      if (cr !== null) return plus(frameAddress(left, depth + 1), -cr);
    }
    return undefined;
  };
  // The adds and subtracts of a frame address computed in place (`frame + c` as a load's address).
  const addressParts = new Set<Expr>();
  const addChain = (start: Expr) => {
    for (let part: Expr | undefined = start; part && idOf(part) === Id.Binary;) {
      addressParts.add(part);
      const [l, r]: [Expr, Expr] = [Binary.getLeft(part), Binary.getRight(part)];
      part = constant(r) !== null ? l : r;
    }
  };
  // The epilogue restoring the stack pointer (`global.set $__stack_pointer (frame + 80)`).
  for (const value of restores) if (frameAddress(value) !== undefined) addChain(value);
  // Indexed accesses (`frame + c + x`, x not a frame address).
  const indexed = new Map<Expr, IndexedStore>();
  for (const e of accesses) {
    const ptr = accessApi(e).getPtr(e);
    if (frameAddress(ptr) !== undefined) {
      addChain(ptr);
      continue;
    }
    if (idOf(ptr) !== Id.Binary || Binary.getOp(ptr) !== binaryen.AddInt32) continue;
    const [left, right] = [Binary.getLeft(ptr), Binary.getRight(ptr)];
    const [al, ar] = [frameAddress(left), frameAddress(right)];
    if ((al === undefined) === (ar === undefined)) continue;
    const [base, index, at] = al !== undefined ? [left, right, al] : [right, left, ar!];
    if (constant(index) !== null) continue;
    addressParts.add(ptr);
    addChain(base);
    if (idOf(e) === Id.Store) indexed.set(e, { at: at + Store.getOffset(e), base, index, indexFirst: base === right });
  }
  const isPointerGet = (e: Expr) => pointerOf(e) !== undefined;
  const derivesPointer = (parent: Expr) => {
    // The value of a frame pointer's definition (a copy or the add/sub defining it).
    for (const [index, value] of valueOf) if (value === parent && delta.has(index)) return true;
    return false;
  };
  let escapes = false;
  for (const { get, parent } of uses) {
    if (!isPointerGet(get) || parent === null) continue;
    const id = idOf(parent);
    const allowed =
      ((id === Id.Load || id === Id.Store) && accessApi(parent).getPtr(parent) === get) ||
      (id === Id.LocalSet && delta.has(LocalSet.getIndex(parent))) ||
      (id === Id.Binary && derivesPointer(parent)) ||
      (id === Id.GlobalSet && GlobalSet.getName(parent) === stackPointer) ||
      addressParts.has(parent);
    if (!allowed) escapes = true;
  }
  const frame: Access[] = [];
  const fixed: Expr[] = [];
  for (const e of accesses) {
    const api = accessApi(e);
    const at = frameAddress(api.getPtr(e));
    if (at === undefined) {
      if (constant(api.getPtr(e)) !== null) fixed.push(e);
      continue;
    }
    const type = idOf(e) === Id.Store ? typeOf(Store.getValue(e)) : typeOf(e);
    const bytes = api.getBytes(e);
    const full =
      type === binaryen.i32 || type === binaryen.f32 ? 4 : type === binaryen.i64 || type === binaryen.f64 ? 8 : 0;
    frame.push({ expr: e, address: at + api.getOffset(e), bytes, type, partial: api.isAtomic(e) || bytes !== full });
  }
  const slotOf = new Map<Expr, number>();
  const untracked = new Set<Expr>(fixed);
  const slots = new Map<number, number>();
  const ranges: FrameSlots['slots'] = [];
  for (const a of frame) {
    const same = (b: Access) => b.address === a.address && b.bytes === a.bytes && b.type === a.type && !b.partial;
    const overlaps = (b: Access) => b.address < a.address + a.bytes && a.address < b.address + b.bytes;
    if (a.partial || frame.some((b) => overlaps(b) && !same(b))) {
      untracked.add(a.expr);
      continue;
    }
    let slot = slots.get(a.address);
    if (slot === undefined) {
      slots.set(a.address, (slot = slots.size));
      ranges.push({ address: a.address, bytes: a.bytes });
    }
    slotOf.set(a.expr, slot);
  }
  return { slotOf, slots: ranges, indexed, untracked, count: slots.size, escapes };
}
