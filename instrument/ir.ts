// A typed layer over binaryen.js's expression API: expression kinds, operand slots in evaluation
// order, branch targets, walks. It re-exports the typed wrapper of what binaryen.js's typings lack
// (binaryen-api.ts: the per-kind classes, runtime numbering), so a pass imports its IR from here.
import binaryen from 'binaryen';
import {
  Block,
  Break,
  Call,
  CallIndirect,
  Loop,
  Switch,
  TupleMake,
  childAccessors,
  expressionId,
  expressionType,
  runtimeNumber,
  type Expr,
  type Type,
} from './binaryen-api.js';

export * from './binaryen-api.js';

type Getter = (expr: Expr) => Expr;
type Setter = (expr: Expr, child: Expr) => void;

/** Expression kinds, numbered as the running binaryen numbers them. */
export const Id = {
  Nop: runtimeNumber('NopId'),
  Block: runtimeNumber('BlockId'),
  If: runtimeNumber('IfId'),
  Loop: runtimeNumber('LoopId'),
  Break: runtimeNumber('BreakId'),
  Switch: runtimeNumber('SwitchId'),
  Call: runtimeNumber('CallId'),
  CallIndirect: runtimeNumber('CallIndirectId'),
  LocalGet: runtimeNumber('LocalGetId'),
  LocalSet: runtimeNumber('LocalSetId'),
  GlobalGet: runtimeNumber('GlobalGetId'),
  GlobalSet: runtimeNumber('GlobalSetId'),
  Load: runtimeNumber('LoadId'),
  Store: runtimeNumber('StoreId'),
  Const: runtimeNumber('ConstId'),
  Unary: runtimeNumber('UnaryId'),
  Binary: runtimeNumber('BinaryId'),
  Select: runtimeNumber('SelectId'),
  Drop: runtimeNumber('DropId'),
  Return: runtimeNumber('ReturnId'),
  MemorySize: runtimeNumber('MemorySizeId'),
  MemoryGrow: runtimeNumber('MemoryGrowId'),
  Unreachable: runtimeNumber('UnreachableId'),
  SIMDExtract: runtimeNumber('SIMDExtractId'),
  SIMDReplace: runtimeNumber('SIMDReplaceId'),
  SIMDShuffle: runtimeNumber('SIMDShuffleId'),
  SIMDTernary: runtimeNumber('SIMDTernaryId'),
  SIMDShift: runtimeNumber('SIMDShiftId'),
  SIMDLoad: runtimeNumber('SIMDLoadId'),
  SIMDLoadStoreLane: runtimeNumber('SIMDLoadStoreLaneId'),
  MemoryInit: runtimeNumber('MemoryInitId'),
  DataDrop: runtimeNumber('DataDropId'),
  MemoryCopy: runtimeNumber('MemoryCopyId'),
  MemoryFill: runtimeNumber('MemoryFillId'),
  RefNull: runtimeNumber('RefNullId'),
  RefIsNull: runtimeNumber('RefIsNullId'),
  RefFunc: runtimeNumber('RefFuncId'),
  RefEq: runtimeNumber('RefEqId'),
  RefAs: runtimeNumber('RefAsId'),
  TableGet: runtimeNumber('TableGetId'),
  TableSet: runtimeNumber('TableSetId'),
  TableSize: runtimeNumber('TableSizeId'),
  TableGrow: runtimeNumber('TableGrowId'),
  TupleMake: runtimeNumber('TupleMakeId'),
  TupleExtract: runtimeNumber('TupleExtractId'),
} as const;

const idNames = new Map<number, string>(Object.entries(Id).map(([name, id]) => [id, name]));

export function idOf(expr: Expr): number {
  return expressionId(expr);
}

export function typeOf(expr: Expr): Type {
  return expressionType(expr);
}

export function kindName(expr: Expr): string {
  return idNames.get(idOf(expr)) ?? `expression#${idOf(expr)}`;
}

/** One operand slot of an expression: read it, or put another expression in its place. */
export interface ChildSlot {
  readonly expr: Expr;
  replace(child: Expr): void;
}

const field = (cls: string, name: string): [Getter, Setter] => childAccessors(cls, name);

/** Child fields per kind, in evaluation order (the order Wasm's stack machine runs them). */
const fixedFields = new Map<number, Array<[Getter, Setter]>>([
  [Id.If, [field('If', 'Condition'), field('If', 'IfTrue'), field('If', 'IfFalse')]],
  [Id.Loop, [field('Loop', 'Body')]],
  [Id.Break, [field('Break', 'Value'), field('Break', 'Condition')]],
  [Id.Switch, [field('Switch', 'Value'), field('Switch', 'Condition')]],
  [Id.LocalSet, [field('LocalSet', 'Value')]],
  [Id.GlobalSet, [field('GlobalSet', 'Value')]],
  [Id.Load, [field('Load', 'Ptr')]],
  [Id.Store, [field('Store', 'Ptr'), field('Store', 'Value')]],
  [Id.Unary, [field('Unary', 'Value')]],
  [Id.Binary, [field('Binary', 'Left'), field('Binary', 'Right')]],
  [Id.Select, [field('Select', 'IfTrue'), field('Select', 'IfFalse'), field('Select', 'Condition')]],
  [Id.Drop, [field('Drop', 'Value')]],
  [Id.Return, [field('Return', 'Value')]],
  [Id.MemoryGrow, [field('MemoryGrow', 'Delta')]],
  [Id.SIMDExtract, [field('SIMDExtract', 'Vec')]],
  [Id.SIMDReplace, [field('SIMDReplace', 'Vec'), field('SIMDReplace', 'Value')]],
  [Id.SIMDShuffle, [field('SIMDShuffle', 'Left'), field('SIMDShuffle', 'Right')]],
  [Id.SIMDTernary, [field('SIMDTernary', 'A'), field('SIMDTernary', 'B'), field('SIMDTernary', 'C')]],
  [Id.SIMDShift, [field('SIMDShift', 'Vec'), field('SIMDShift', 'Shift')]],
  [Id.SIMDLoad, [field('SIMDLoad', 'Ptr')]],
  [Id.SIMDLoadStoreLane, [field('SIMDLoadStoreLane', 'Ptr'), field('SIMDLoadStoreLane', 'Vec')]],
  [Id.MemoryInit, [field('MemoryInit', 'Dest'), field('MemoryInit', 'Offset'), field('MemoryInit', 'Size')]],
  [Id.MemoryCopy, [field('MemoryCopy', 'Dest'), field('MemoryCopy', 'Source'), field('MemoryCopy', 'Size')]],
  [Id.MemoryFill, [field('MemoryFill', 'Dest'), field('MemoryFill', 'Value'), field('MemoryFill', 'Size')]],
  [Id.RefIsNull, [field('RefIsNull', 'Value')]],
  [Id.RefEq, [field('RefEq', 'Left'), field('RefEq', 'Right')]],
  [Id.RefAs, [field('RefAs', 'Value')]],
  [Id.TableGet, [field('TableGet', 'Index')]],
  [Id.TableSet, [field('TableSet', 'Index'), field('TableSet', 'Value')]],
  [Id.TableGrow, [field('TableGrow', 'Value'), field('TableGrow', 'Delta')]],
  [Id.TupleExtract, [field('TupleExtract', 'Tuple')]],
]);

const leaves = new Set<number>([
  Id.Nop,
  Id.LocalGet,
  Id.GlobalGet,
  Id.Const,
  Id.MemorySize,
  Id.Unreachable,
  Id.DataDrop,
  Id.RefNull,
  Id.RefFunc,
  Id.TableSize,
]);

export class UnsupportedExpression extends Error {}

/** An expression's operand positions in evaluation order: read or write the k-th (a fixed field may be empty: 0). */
interface Operands {
  count: number;
  get(k: number): Expr;
  set(k: number, child: Expr): void;
}

const NO_OPERANDS: Operands = { count: 0, get: () => 0, set: () => undefined };

function operandsOf(expr: Expr): Operands {
  const id = idOf(expr);
  if (id === Id.Block) {
    return {
      count: Block.getNumChildren(expr),
      get: (k) => Block.getChildAt(expr, k),
      set: (k, child) => Block.setChildAt(expr, k, child),
    };
  }
  if (id === Id.Call || id === Id.CallIndirect || id === Id.TupleMake) {
    const ops = id === Id.Call ? Call : id === Id.CallIndirect ? CallIndirect : TupleMake;
    const count = ops.getNumOperands(expr);
    if (id !== Id.CallIndirect) {
      return { count, get: (k) => ops.getOperandAt(expr, k), set: (k, child) => ops.setOperandAt(expr, k, child) };
    }
    return {
      count: count + 1,
      get: (k) => (k < count ? ops.getOperandAt(expr, k) : CallIndirect.getTarget(expr)),
      set: (k, child) => (k < count ? ops.setOperandAt(expr, k, child) : CallIndirect.setTarget(expr, child)),
    };
  }
  const fields = fixedFields.get(id);
  if (fields) {
    return { count: fields.length, get: (k) => fields[k]![0](expr), set: (k, child) => fields[k]![1](expr, child) };
  }
  if (leaves.has(id)) return NO_OPERANDS;
  throw new UnsupportedExpression(`unsupported instruction ${kindName(expr)}`);
}

/** Getters of the fixed child fields per kind, in evaluation order (the read-only walks' table). */
const fixedGetters = new Map<number, Getter[]>(
  [...fixedFields].map(([id, fields]) => [id, fields.map(([get]) => get)]),
);

/**
 * A block child's or a fixed field's slot: its parent and position. `replace` is a method (no
 * closure per slot: the walks make one slot per operand); pass it on as `(e) => slot.replace(e)`.
 */
class FieldSlot implements ChildSlot {
  constructor(
    readonly expr: Expr,
    private readonly parent: Expr,
    private readonly k: number,
    private readonly setters: Setter[] | null,
  ) {}

  replace(child: Expr): void {
    if (this.setters) this.setters[this.k]!(this.parent, child);
    else Block.setChildAt(this.parent, this.k, child);
  }
}

/** Setters of the fixed child fields per kind, in evaluation order. */
const fixedSetters = new Map<number, Setter[]>(
  [...fixedFields].map(([id, fields]) => [id, fields.map(([, set]) => set)]),
);

/** The operand slots of `expr` in evaluation order; empty slots (a `br` without value) are skipped. */
export function childSlots(expr: Expr): ChildSlot[] {
  const id = idOf(expr);
  const slots: ChildSlot[] = [];
  if (id === Id.Block) {
    const count = Block.getNumChildren(expr);
    for (let k = 0; k < count; k++) slots.push(new FieldSlot(Block.getChildAt(expr, k), expr, k, null));
    return slots;
  }
  const getters = fixedGetters.get(id);
  if (getters) {
    const setters = fixedSetters.get(id)!;
    for (let k = 0; k < getters.length; k++) {
      const child = getters[k]!(expr);
      if (child) slots.push(new FieldSlot(child, expr, k, setters));
    }
    return slots;
  }
  const ops = operandsOf(expr);
  for (let k = 0; k < ops.count; k++) {
    const child = ops.get(k);
    if (child) slots.push({ expr: child, replace: (c) => ops.set(k, c) });
  }
  return slots;
}

/** Appends the operands of `expr` in evaluation order to `out` (no slot objects or closures: the walks' hot path). */
function pushChildren(expr: Expr, out: Expr[]): void {
  const id = idOf(expr);
  if (id === Id.Block) {
    const count = Block.getNumChildren(expr);
    for (let k = 0; k < count; k++) out.push(Block.getChildAt(expr, k));
    return;
  }
  const getters = fixedGetters.get(id);
  if (getters) {
    for (const get of getters) {
      const child = get(expr);
      if (child) out.push(child);
    }
    return;
  }
  if (leaves.has(id)) return;
  const ops = operandsOf(expr);
  for (let k = 0; k < ops.count; k++) {
    const child = ops.get(k);
    if (child) out.push(child);
  }
}

/** The operands of `expr` in evaluation order. */
export function children(expr: Expr): Expr[] {
  const out: Expr[] = [];
  pushChildren(expr, out);
  return out;
}

/** Labels a branch expression may jump to (br, br_if, br_table). */
export function branchTargets(expr: Expr): string[] {
  const id = idOf(expr);
  if (id === Id.Break) return [Break.getName(expr)];
  if (id === Id.Switch) {
    const names = [...Switch.getNames(expr)];
    const fallback = Switch.getDefaultName(expr);
    if (fallback) names.push(fallback);
    return names;
  }
  return [];
}

/** The label an expression defines for branches (named blocks and loops), or null. */
export function labelOf(expr: Expr): string | null {
  const id = idOf(expr);
  if (id === Id.Block) return Block.getName(expr) || null;
  if (id === Id.Loop) return Loop.getName(expr) || null;
  return null;
}

export function isControlTransfer(expr: Expr): boolean {
  const id = idOf(expr);
  return id === Id.Break || id === Id.Switch || id === Id.Return;
}

/**
 * Walks a tree in evaluation order (operands before the operation: post-order). One stack holds
 * the expressions still to finish; an expression's operands are read when it first comes to the
 * top (after its earlier siblings are done) and pushed last operand first, so the first is on top.
 */
export function walkPostOrder(root: Expr, visit: (expr: Expr) => void): void {
  const stack: Expr[] = [root];
  const opened: boolean[] = [false];
  while (stack.length > 0) {
    const top = stack.length - 1;
    if (opened[top]) {
      opened.pop();
      visit(stack.pop()!);
      continue;
    }
    opened[top] = true;
    const first = stack.length;
    pushChildren(stack[top]!, stack);
    for (let i = first, j = stack.length - 1; i < j; i++, j--) {
      const swap = stack[i]!;
      stack[i] = stack[j]!;
      stack[j] = swap;
    }
    for (let k = first; k < stack.length; k++) opened.push(false);
  }
}

/** Each expression's parent under `root` (the root has none). */
export function parentsOf(root: Expr): Map<Expr, Expr> {
  const parents = new Map<Expr, Expr>();
  walkPostOrder(root, (e) => {
    for (const child of children(e)) parents.set(child, e);
  });
  return parents;
}

/** Every block under `root`, in post order (inner blocks first): where the passes find loops standing as statements. */
export function blocksIn(root: Expr): Expr[] {
  const blocks: Expr[] = [];
  walkPostOrder(root, (e) => {
    if (idOf(e) === Id.Block) blocks.push(e);
  });
  return blocks;
}

export function expandType(type: Type): Type[] {
  return binaryen.expandType(type);
}

/** Counts an expression as Wasm instructions: everything but block and nop (pure structure). */
export function isCountedInstruction(expr: Expr): boolean {
  const id = idOf(expr);
  return id !== Id.Block && id !== Id.Nop;
}
