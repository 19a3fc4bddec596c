// Memory shadow of the taint pass: the labels a load reads from shadow memory, and the shadow
// updates after a store, a SIMD lane store and memory.copy/fill/init (a store writes its value's
// label joined with the control label). The layout of shadow memory itself is shadow-memory.ts.
import binaryen from 'binaryen';
import { Id, Load, LocalGet, Store, idOf, type Expr } from '../ir.js';
import { copyOperand, isDead, operandLabel, orAll, orZero, programAddress, programOffset, type FunctionTaint } from './taint-function.js';

/** Statements that write linear memory. */
export const MEMORY_STATEMENTS = new Set<number>([Id.Store, Id.SIMDLoadStoreLane, Id.MemoryCopy, Id.MemoryFill, Id.MemoryInit]);

/** Reads of linear memory in value position. */
export const MEMORY_LOADS = new Set<number>([Id.Load, Id.SIMDLoad, Id.SIMDLoadStoreLane]);

type LaneApi = { isStore(e: Expr): boolean; getPtr(e: Expr): Expr; getVec(e: Expr): Expr; getOffset(e: Expr): number; getOp(e: Expr): number };

function bytesOfSimdLoad(op: number): number {
  const b = binaryen as unknown as Record<string, number>;
  if (op === b.Load8SplatVec128) return 1;
  if (op === b.Load16SplatVec128) return 2;
  if (op === b.Load32SplatVec128 || op === b.Load32ZeroVec128) return 4;
  return 8;
}

/** A memory-writing statement (one of MEMORY_STATEMENTS) followed by its shadow update. */
export function memoryStmt(c: FunctionTaint, s: Expr): Expr[] {
  const id = idOf(s);
  const { module } = c.m;
  const i32 = binaryen.i32;
  if (id === Id.Store) {
    const ptr = Store.getPtr(s);
    const value = Store.getValue(s);
    if (isDead(s)) return [s];
    // A frame slot is a local in memory: no control label (taint-frame.ts).
    const frameSlot = idOf(ptr) === Id.LocalGet && c.frame.pointers.has(LocalGet.getIndex(ptr));
    const label = orZero(c, orAll(c, [operandLabel(c, value), frameSlot ? null : module.local.get(c.control.label, i32)]));
    return [s, ...c.m.shadowMemory.store(c.codegen, ptr, programOffset(c, Store.getOffset(s)), Store.getBytes(s), label)];
  }
  if (id === Id.SIMDLoadStoreLane) {
    const api = (binaryen as unknown as { SIMDLoadStoreLane: LaneApi }).SIMDLoadStoreLane;
    if (api.isStore(s) && !isDead(s)) {
      const b = binaryen as unknown as Record<string, number>;
      const op = api.getOp(s);
      const bytes = op === b.Store8LaneVec128 ? 1 : op === b.Store16LaneVec128 ? 2 : op === b.Store32LaneVec128 ? 4 : 8;
      const label = orZero(c, orAll(c, [operandLabel(c, api.getVec(s)), module.local.get(c.control.label, i32)]));
      return [s, ...c.m.shadowMemory.store(c.codegen, api.getPtr(s), programOffset(c, api.getOffset(s)), bytes, label)];
    }
    return [s];
  }
  if (id === Id.MemoryCopy && !isDead(s)) {
    const api = (binaryen as unknown as { MemoryCopy: { getDest(e: Expr): Expr; getSource(e: Expr): Expr; getSize(e: Expr): Expr } }).MemoryCopy;
    return [s, c.m.shadowMemory.copy(c.codegen, programAddress(c, api.getDest(s)), programAddress(c, api.getSource(s)), copyOperand(c, api.getSize(s)))];
  }
  if (id === Id.MemoryFill && !isDead(s)) {
    const api = (binaryen as unknown as { MemoryFill: { getDest(e: Expr): Expr; getValue(e: Expr): Expr; getSize(e: Expr): Expr } }).MemoryFill;
    const label = orZero(c, orAll(c, [operandLabel(c, api.getValue(s)), module.local.get(c.control.label, i32)]));
    return [s, c.m.shadowMemory.fill(c.codegen, programAddress(c, api.getDest(s)), label, copyOperand(c, api.getSize(s)))];
  }
  if (id === Id.MemoryInit && !isDead(s)) {
    const api = (binaryen as unknown as { MemoryInit: { getDest(e: Expr): Expr; getSize(e: Expr): Expr } }).MemoryInit;
    return [s, c.m.shadowMemory.fill(c.codegen, programAddress(c, api.getDest(s)), module.local.get(c.control.label, i32), copyOperand(c, api.getSize(s)))];
  }
  return [s];
}

/**
 * The label of a load (one of MEMORY_LOADS) by the program: the join of the shadow of the bytes it
 * reads, and with `pointerLabels: 'join'` the label of its address too.
 */
export function loadLabel(c: FunctionTaint, value: Expr): Expr | null {
  const label = dataLabel(c, value);
  if (c.m.options.pointerLabels !== 'join') return label;
  const id = idOf(value);
  const api = binaryen as unknown as { SIMDLoad: { getPtr(e: Expr): Expr }; SIMDLoadStoreLane: LaneApi };
  const ptr = id === Id.Load ? Load.getPtr(value) : id === Id.SIMDLoad ? api.SIMDLoad.getPtr(value) : api.SIMDLoadStoreLane.getPtr(value);
  return orAll(c, [label, operandLabel(c, ptr)]);
}

function dataLabel(c: FunctionTaint, value: Expr): Expr | null {
  const id = idOf(value);
  if (id === Id.Load) {
    if (Load.isAtomic(value)) return null;
    return c.m.shadowMemory.load(c.codegen, Load.getPtr(value), programOffset(c, Load.getOffset(value)), Load.getBytes(value));
  }
  if (id === Id.SIMDLoad) {
    const api = (binaryen as unknown as { SIMDLoad: { getOp(e: Expr): number; getPtr(e: Expr): Expr; getOffset(e: Expr): number } }).SIMDLoad;
    return c.m.shadowMemory.load(c.codegen, api.getPtr(value), programOffset(c, api.getOffset(value)), bytesOfSimdLoad(api.getOp(value)));
  }
  const api = (binaryen as unknown as { SIMDLoadStoreLane: LaneApi }).SIMDLoadStoreLane;
  const b = binaryen as unknown as Record<string, number>;
  const op = api.getOp(value);
  const bytes = op === b.Load8LaneVec128 ? 1 : op === b.Load16LaneVec128 ? 2 : op === b.Load32LaneVec128 ? 4 : 8;
  return orAll(c, [operandLabel(c, api.getVec(value)), c.m.shadowMemory.load(c.codegen, api.getPtr(value), programOffset(c, api.getOffset(value)), bytes)]);
}
