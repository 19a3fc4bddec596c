// Memory shadow of the taint pass: the labels a load reads from shadow memory, and the shadow
// updates after a store, a SIMD lane store and memory.copy/fill/init (a store writes its value's
// label joined with the control label). The layout of shadow memory itself is shadow-memory.ts.
import {
  Id,
  Load,
  LocalGet,
  MemoryCopy,
  MemoryFill,
  MemoryInit,
  SIMDLoad,
  SIMDLoadStoreLane,
  Store,
  idOf,
  runtimeNumber,
  type Expr,
} from '../ir.js';
import {
  copyOperand,
  isDead,
  operandLabel,
  orAll,
  orZero,
  programAddress,
  programOffset,
  type FunctionTaint,
  controlLabel,
} from './taint-function.js';
import { frameLoadLabel, frameStoreLabel } from './shadow-frame.js';

/** Statements that write linear memory. */
export const MEMORY_STATEMENTS = new Set<number>([
  Id.Store,
  Id.SIMDLoadStoreLane,
  Id.MemoryCopy,
  Id.MemoryFill,
  Id.MemoryInit,
]);

/** Reads of linear memory in value position. */
export const MEMORY_LOADS = new Set<number>([Id.Load, Id.SIMDLoad, Id.SIMDLoadStoreLane]);

/** The SIMD load and lane operations whose width is not 8 bytes, as the running binaryen numbers them. */
const SimdOp = {
  Load8SplatVec128: runtimeNumber('Load8SplatVec128'),
  Load16SplatVec128: runtimeNumber('Load16SplatVec128'),
  Load32SplatVec128: runtimeNumber('Load32SplatVec128'),
  Load32ZeroVec128: runtimeNumber('Load32ZeroVec128'),
  Load8LaneVec128: runtimeNumber('Load8LaneVec128'),
  Load16LaneVec128: runtimeNumber('Load16LaneVec128'),
  Load32LaneVec128: runtimeNumber('Load32LaneVec128'),
  Store8LaneVec128: runtimeNumber('Store8LaneVec128'),
  Store16LaneVec128: runtimeNumber('Store16LaneVec128'),
  Store32LaneVec128: runtimeNumber('Store32LaneVec128'),
};

function bytesOfSimdLoad(op: number): number {
  if (op === SimdOp.Load8SplatVec128) return 1;
  if (op === SimdOp.Load16SplatVec128) return 2;
  if (op === SimdOp.Load32SplatVec128 || op === SimdOp.Load32ZeroVec128) return 4;
  return 8;
}

/** A memory-writing statement (one of MEMORY_STATEMENTS) followed by its shadow update. */
export function memoryStmt(c: FunctionTaint, s: Expr): Expr[] {
  const id = idOf(s);
  if (id === Id.Store) {
    const ptr = Store.getPtr(s);
    const value = Store.getValue(s);
    if (isDead(s)) return [s];
    // A frame slot is a local in memory: no control label (taint-frame.ts).
    const frameSlot = idOf(ptr) === Id.LocalGet && c.frame.pointers.has(LocalGet.getIndex(ptr));
    // A counter indexed by a value counts what the index selected (taint-counters.ts).
    const counter = !frameSlot && c.m.loopFlow && !c.m.joinPointers && c.counters.has(s);
    const label = orZero(
      c,
      orAll(c, [operandLabel(c, value), frameSlot ? null : controlLabel(c), counter ? operandLabel(c, ptr) : null]),
    );
    const offset = programOffset(c, Store.getOffset(s));
    if (frameSlot && c.frameLabels)
      return [
        s,
        ...frameStoreLabel(c.codegen, c.frameLabels, LocalGet.getIndex(ptr), offset, Store.getBytes(s), label),
      ];
    return [s, ...c.m.shadowMemory.store(c.codegen, ptr, offset, Store.getBytes(s), label)];
  }
  if (id === Id.SIMDLoadStoreLane) {
    const api = SIMDLoadStoreLane;
    if (api.isStore(s) && !isDead(s)) {
      const op = api.getOp(s);
      const bytes =
        op === SimdOp.Store8LaneVec128
          ? 1
          : op === SimdOp.Store16LaneVec128
            ? 2
            : op === SimdOp.Store32LaneVec128
              ? 4
              : 8;
      const label = orZero(c, orAll(c, [operandLabel(c, api.getVec(s)), controlLabel(c)]));
      return [s, ...c.m.shadowMemory.store(c.codegen, api.getPtr(s), programOffset(c, api.getOffset(s)), bytes, label)];
    }
    return [s];
  }
  if (id === Id.MemoryCopy && !isDead(s)) {
    const api = MemoryCopy;
    return [
      s,
      c.m.shadowMemory.copy(
        c.codegen,
        programAddress(c, api.getDest(s)),
        programAddress(c, api.getSource(s)),
        copyOperand(c, api.getSize(s)),
      ),
    ];
  }
  if (id === Id.MemoryFill && !isDead(s)) {
    const api = MemoryFill;
    const label = orZero(c, orAll(c, [operandLabel(c, api.getValue(s)), controlLabel(c)]));
    return [
      s,
      c.m.shadowMemory.fill(c.codegen, programAddress(c, api.getDest(s)), label, copyOperand(c, api.getSize(s))),
    ];
  }
  if (id === Id.MemoryInit && !isDead(s)) {
    const api = MemoryInit;
    return [
      s,
      c.m.shadowMemory.fill(
        c.codegen,
        programAddress(c, api.getDest(s)),
        orZero(c, controlLabel(c)),
        copyOperand(c, api.getSize(s)),
      ),
    ];
  }
  return [s];
}

/**
 * The label of a load (one of MEMORY_LOADS) by the program: the join of the shadow of the bytes it
 * reads, and with `pointerLabels: 'join'` the label of its address too.
 */
export function loadLabel(c: FunctionTaint, value: Expr): Expr | null {
  const label = dataLabel(c, value);
  if (!c.m.joinPointers) return label;
  const id = idOf(value);
  const ptr =
    id === Id.Load ? Load.getPtr(value) : id === Id.SIMDLoad ? SIMDLoad.getPtr(value) : SIMDLoadStoreLane.getPtr(value);
  return orAll(c, [label, operandLabel(c, ptr)]);
}

function dataLabel(c: FunctionTaint, value: Expr): Expr | null {
  const id = idOf(value);
  if (id === Id.Load) {
    if (Load.isAtomic(value)) return null;
    const ptr = Load.getPtr(value);
    if (c.frameLabels && idOf(ptr) === Id.LocalGet && c.frameLabels.delta.has(LocalGet.getIndex(ptr)))
      return frameLoadLabel(
        c.codegen,
        c.frameLabels,
        LocalGet.getIndex(ptr),
        programOffset(c, Load.getOffset(value)),
        Load.getBytes(value),
      );
    return c.m.shadowMemory.load(
      c.codegen,
      Load.getPtr(value),
      programOffset(c, Load.getOffset(value)),
      Load.getBytes(value),
    );
  }
  if (id === Id.SIMDLoad) {
    const api = SIMDLoad;
    return c.m.shadowMemory.load(
      c.codegen,
      api.getPtr(value),
      programOffset(c, api.getOffset(value)),
      bytesOfSimdLoad(api.getOp(value)),
    );
  }
  const api = SIMDLoadStoreLane;
  const op = api.getOp(value);
  const bytes =
    op === SimdOp.Load8LaneVec128 ? 1 : op === SimdOp.Load16LaneVec128 ? 2 : op === SimdOp.Load32LaneVec128 ? 4 : 8;
  return orAll(c, [
    operandLabel(c, api.getVec(value)),
    c.m.shadowMemory.load(c.codegen, api.getPtr(value), programOffset(c, api.getOffset(value)), bytes),
  ]);
}
