// A typed layer over binaryen.js's expression API. The published typings miss the per-kind wrapper
// classes (binaryen.Block, binaryen.Loop, ...) that exist at runtime, and their ExpressionIds enum
// does not match the runtime numbering, so every pass goes through this module instead.
import binaryen from 'binaryen';

export type Expr = number;
export type Type = number;

type Getter = (expr: Expr) => Expr;
type Setter = (expr: Expr, child: Expr) => void;

interface BlockApi { getName(e: Expr): string | null; setName(e: Expr, n: string): void; getNumChildren(e: Expr): number; getChildAt(e: Expr, i: number): Expr; setChildAt(e: Expr, i: number, c: Expr): void; }
interface LoopApi { getName(e: Expr): string; getBody(e: Expr): Expr; setBody(e: Expr, c: Expr): void; }
interface IfApi { getCondition(e: Expr): Expr; getIfTrue(e: Expr): Expr; getIfFalse(e: Expr): Expr; setCondition(e: Expr, c: Expr): void; setIfTrue(e: Expr, c: Expr): void; setIfFalse(e: Expr, c: Expr): void; }
interface BreakApi { getName(e: Expr): string; getCondition(e: Expr): Expr; getValue(e: Expr): Expr; setCondition(e: Expr, c: Expr): void; setValue(e: Expr, c: Expr): void; }
interface SwitchApi { getNames(e: Expr): string[]; getDefaultName(e: Expr): string; getCondition(e: Expr): Expr; getValue(e: Expr): Expr; setCondition(e: Expr, c: Expr): void; setValue(e: Expr, c: Expr): void; }
interface OperandsApi { getNumOperands(e: Expr): number; getOperandAt(e: Expr, i: number): Expr; setOperandAt(e: Expr, i: number, c: Expr): void; }
interface CallApi extends OperandsApi { getTarget(e: Expr): string; isReturn(e: Expr): boolean; }
interface CallIndirectApi extends OperandsApi { getTarget(e: Expr): Expr; setTarget(e: Expr, c: Expr): void; getTable(e: Expr): string; isReturn(e: Expr): boolean; }
interface LocalApi { getIndex(e: Expr): number; isTee(e: Expr): boolean; getValue(e: Expr): Expr; setValue(e: Expr, c: Expr): void; }
interface GlobalApi { getName(e: Expr): string; getValue(e: Expr): Expr; setValue(e: Expr, c: Expr): void; }
interface MemAccessApi { getOffset(e: Expr): number; setOffset(e: Expr, o: number): void; getBytes(e: Expr): number; getPtr(e: Expr): Expr; setPtr(e: Expr, c: Expr): void; getValue(e: Expr): Expr; setValue(e: Expr, c: Expr): void; isSigned(e: Expr): boolean; isAtomic(e: Expr): boolean; getAlign(e: Expr): number; }
interface ConstApi { getValueI32(e: Expr): number; getValueI64(e: Expr): bigint; setValueI64(e: Expr, v: bigint): void; getValueF32(e: Expr): number; getValueF64(e: Expr): number; }
interface UnaryApi { getOp(e: Expr): number; getValue(e: Expr): Expr; }
interface BinaryApi { getOp(e: Expr): number; getLeft(e: Expr): Expr; getRight(e: Expr): Expr; }
interface SelectApi { getIfTrue(e: Expr): Expr; getIfFalse(e: Expr): Expr; getCondition(e: Expr): Expr; }
interface FunctionApi { getName(f: number): string; getParams(f: number): Type; getResults(f: number): Type; getNumVars(f: number): number; getVar(f: number, i: number): Type; getNumLocals(f: number): number; getBody(f: number): Expr; setBody(f: number, body: Expr): void; }

const api = binaryen as unknown as Record<string, Record<string, (...args: never[]) => unknown>>;

export const Block = api.Block as unknown as BlockApi;
export const Loop = api.Loop as unknown as LoopApi;
export const If = api.If as unknown as IfApi;
export const Break = api.Break as unknown as BreakApi;
export const Switch = api.Switch as unknown as SwitchApi;
export const Call = api.Call as unknown as CallApi;
export const CallIndirect = api.CallIndirect as unknown as CallIndirectApi;
export const Drop = api.Drop as unknown as { getValue(e: Expr): Expr };
export const LocalGet = api.LocalGet as unknown as LocalApi;
export const LocalSet = api.LocalSet as unknown as LocalApi;
export const GlobalGet = api.GlobalGet as unknown as GlobalApi;
export const GlobalSet = api.GlobalSet as unknown as GlobalApi;
export const Load = api.Load as unknown as MemAccessApi;
export const Store = api.Store as unknown as MemAccessApi;
export const Const = api.Const as unknown as ConstApi;
export const Unary = api.Unary as unknown as UnaryApi;
export const Binary = api.Binary as unknown as BinaryApi;
export const Select = api.Select as unknown as SelectApi;
export const Func = api.Function as unknown as FunctionApi;

const runtimeIds = binaryen as unknown as Record<string, number>;

/** Expression kinds, numbered as the running binaryen numbers them. */
export const Id = {
  Nop: runtimeIds.NopId!, Block: runtimeIds.BlockId!, If: runtimeIds.IfId!, Loop: runtimeIds.LoopId!,
  Break: runtimeIds.BreakId!, Switch: runtimeIds.SwitchId!, Call: runtimeIds.CallId!, CallIndirect: runtimeIds.CallIndirectId!,
  LocalGet: runtimeIds.LocalGetId!, LocalSet: runtimeIds.LocalSetId!, GlobalGet: runtimeIds.GlobalGetId!, GlobalSet: runtimeIds.GlobalSetId!,
  Load: runtimeIds.LoadId!, Store: runtimeIds.StoreId!, Const: runtimeIds.ConstId!, Unary: runtimeIds.UnaryId!, Binary: runtimeIds.BinaryId!,
  Select: runtimeIds.SelectId!, Drop: runtimeIds.DropId!, Return: runtimeIds.ReturnId!, MemorySize: runtimeIds.MemorySizeId!,
  MemoryGrow: runtimeIds.MemoryGrowId!, Unreachable: runtimeIds.UnreachableId!,
  SIMDExtract: runtimeIds.SIMDExtractId!, SIMDReplace: runtimeIds.SIMDReplaceId!, SIMDShuffle: runtimeIds.SIMDShuffleId!,
  SIMDTernary: runtimeIds.SIMDTernaryId!, SIMDShift: runtimeIds.SIMDShiftId!, SIMDLoad: runtimeIds.SIMDLoadId!,
  SIMDLoadStoreLane: runtimeIds.SIMDLoadStoreLaneId!, MemoryInit: runtimeIds.MemoryInitId!, DataDrop: runtimeIds.DataDropId!,
  MemoryCopy: runtimeIds.MemoryCopyId!, MemoryFill: runtimeIds.MemoryFillId!, RefNull: runtimeIds.RefNullId!,
  RefIsNull: runtimeIds.RefIsNullId!, RefFunc: runtimeIds.RefFuncId!, RefEq: runtimeIds.RefEqId!, RefAs: runtimeIds.RefAsId!,
  TableGet: runtimeIds.TableGetId!, TableSet: runtimeIds.TableSetId!, TableSize: runtimeIds.TableSizeId!, TableGrow: runtimeIds.TableGrowId!,
  TupleMake: runtimeIds.TupleMakeId!, TupleExtract: runtimeIds.TupleExtractId!,
} as const;

const idNames = new Map<number, string>(Object.entries(Id).map(([name, id]) => [id, name]));

export function idOf(expr: Expr): number {
  return binaryen.getExpressionId(expr);
}

export function typeOf(expr: Expr): Type {
  return binaryen.getExpressionType(expr);
}

export function kindName(expr: Expr): string {
  return idNames.get(idOf(expr)) ?? `expression#${idOf(expr)}`;
}

/** One operand slot of an expression: read it, or put another expression in its place. */
export interface ChildSlot {
  readonly expr: Expr;
  replace(child: Expr): void;
}

const field = (cls: string, name: string): [Getter, Setter] => {
  const c = api[cls] as unknown as Record<string, (e: Expr, v?: Expr) => Expr>;
  const get = c[`get${name}`]!;
  const set = c[`set${name}`]!;
  return [(e) => get(e), (e, v) => void set(e, v)];
};

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
  Id.Nop, Id.LocalGet, Id.GlobalGet, Id.Const, Id.MemorySize, Id.Unreachable, Id.DataDrop,
  Id.RefNull, Id.RefFunc, Id.TableSize,
]);

export class UnsupportedExpression extends Error {}

/** The operand slots of `expr` in evaluation order; empty slots (a `br` without value) are skipped. */
export function childSlots(expr: Expr): ChildSlot[] {
  const id = idOf(expr);
  const slots: ChildSlot[] = [];
  if (id === Id.Block) {
    const count = Block.getNumChildren(expr);
    for (let i = 0; i < count; i++) {
      slots.push({ expr: Block.getChildAt(expr, i), replace: (c) => Block.setChildAt(expr, i, c) });
    }
    return slots;
  }
  if (id === Id.Call || id === Id.CallIndirect || id === Id.TupleMake) {
    const ops = (id === Id.Call ? Call : id === Id.CallIndirect ? CallIndirect : (api.TupleMake as unknown as OperandsApi));
    const count = ops.getNumOperands(expr);
    for (let i = 0; i < count; i++) {
      slots.push({ expr: ops.getOperandAt(expr, i), replace: (c) => ops.setOperandAt(expr, i, c) });
    }
    if (id === Id.CallIndirect) {
      slots.push({ expr: CallIndirect.getTarget(expr), replace: (c) => CallIndirect.setTarget(expr, c) });
    }
    return slots;
  }
  const fields = fixedFields.get(id);
  if (fields) {
    for (const [get, set] of fields) {
      const child = get(expr);
      if (child) slots.push({ expr: child, replace: (c) => set(expr, c) });
    }
    return slots;
  }
  if (leaves.has(id)) return slots;
  throw new UnsupportedExpression(`unsupported instruction ${kindName(expr)}`);
}

export function children(expr: Expr): Expr[] {
  return childSlots(expr).map((slot) => slot.expr);
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

/** Walks a tree in evaluation order (operands before the operation: post-order). */
export function walkPostOrder(root: Expr, visit: (expr: Expr) => void): void {
  const stack: Array<{ expr: Expr; kids: Expr[] | null; next: number }> = [{ expr: root, kids: null, next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.kids === null) top.kids = children(top.expr);
    if (top.next < top.kids.length) {
      stack.push({ expr: top.kids[top.next++]!, kids: null, next: 0 });
    } else {
      stack.pop();
      visit(top.expr);
    }
  }
}

export function expandType(type: Type): Type[] {
  return binaryen.expandType(type);
}

/** Adds a local to a function and returns its index (binaryen.js has the C call but no wrapper). */
export function addVar(func: number, type: Type): number {
  return (binaryen as unknown as { _BinaryenFunctionAddVar(f: number, t: Type): number })._BinaryenFunctionAddVar(func, type);
}

/** Counts an expression as Wasm instructions: everything but block and nop (pure structure). */
export function isCountedInstruction(expr: Expr): boolean {
  const id = idOf(expr);
  return id !== Id.Block && id !== Id.Nop;
}

/** `i64.const` (binaryen 132 takes one bigint; the typings still say low/high). */
export function i64Const(module: binaryen.Module, value: number | bigint): Expr {
  return (module.i64.const as unknown as (v: bigint) => Expr)(BigInt(value));
}

export function setConstI64(expr: Expr, value: number | bigint): void {
  (binaryen as unknown as { Const: { setValueI64(e: Expr, v: bigint): void } }).Const.setValueI64(expr, BigInt(value));
}
