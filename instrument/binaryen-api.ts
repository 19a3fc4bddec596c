// What binaryen.js has at run time but its published typings lack, declared once: the per-kind
// expression classes (binaryen.Block, binaryen.Loop, ...), the Function accessors, the C entry
// point for adding a local, and the numbering constants (expression ids, operations) as the
// running binaryen numbers them (the typings' ExpressionIds enum does not match it). This is the
// only place that casts binaryen; ir.ts re-exports all of it, and passes use it instead of casts.
import binaryen from 'binaryen';

export type Expr = number;
export type Type = number;

export interface BlockApi {
  getName(e: Expr): string | null;
  setName(e: Expr, n: string): void;
  getNumChildren(e: Expr): number;
  getChildAt(e: Expr, i: number): Expr;
  setChildAt(e: Expr, i: number, c: Expr): void;
  appendChild(e: Expr, c: Expr): number;
  insertChildAt(e: Expr, i: number, c: Expr): void;
  removeChildAt(e: Expr, i: number): Expr;
}
export interface LoopApi {
  getName(e: Expr): string;
  setName(e: Expr, n: string): void;
  getBody(e: Expr): Expr;
  setBody(e: Expr, c: Expr): void;
}
export interface IfApi {
  getCondition(e: Expr): Expr;
  getIfTrue(e: Expr): Expr;
  getIfFalse(e: Expr): Expr;
  setCondition(e: Expr, c: Expr): void;
  setIfTrue(e: Expr, c: Expr): void;
  setIfFalse(e: Expr, c: Expr): void;
}
export interface BreakApi {
  getName(e: Expr): string;
  setName(e: Expr, n: string): void;
  getCondition(e: Expr): Expr;
  getValue(e: Expr): Expr;
  setCondition(e: Expr, c: Expr): void;
  setValue(e: Expr, c: Expr): void;
}
export interface SwitchApi {
  getNames(e: Expr): string[];
  getDefaultName(e: Expr): string;
  setNameAt(e: Expr, i: number, n: string): void;
  setDefaultName(e: Expr, n: string): void;
  getCondition(e: Expr): Expr;
  getValue(e: Expr): Expr;
  setCondition(e: Expr, c: Expr): void;
  setValue(e: Expr, c: Expr): void;
}
export interface OperandsApi {
  getNumOperands(e: Expr): number;
  getOperandAt(e: Expr, i: number): Expr;
  setOperandAt(e: Expr, i: number, c: Expr): void;
}
export interface CallApi extends OperandsApi {
  getTarget(e: Expr): string;
  setTarget(e: Expr, t: string): void;
  isReturn(e: Expr): boolean;
  setReturn(e: Expr, isReturn: boolean): void;
  appendOperand(e: Expr, o: Expr): number;
}
export interface CallIndirectApi extends OperandsApi {
  getTarget(e: Expr): Expr;
  setTarget(e: Expr, c: Expr): void;
  getTable(e: Expr): string;
  isReturn(e: Expr): boolean;
  setReturn(e: Expr, isReturn: boolean): void;
  getParams(e: Expr): Type;
  getResults(e: Expr): Type;
}
export interface LocalApi {
  getIndex(e: Expr): number;
  setIndex(e: Expr, index: number): void;
  isTee(e: Expr): boolean;
  getValue(e: Expr): Expr;
  setValue(e: Expr, c: Expr): void;
}
export interface GlobalApi {
  getName(e: Expr): string;
  getValue(e: Expr): Expr;
  setValue(e: Expr, c: Expr): void;
}
export interface MemAccessApi {
  getOffset(e: Expr): number;
  setOffset(e: Expr, o: number): void;
  getBytes(e: Expr): number;
  getPtr(e: Expr): Expr;
  setPtr(e: Expr, c: Expr): void;
  getValue(e: Expr): Expr;
  setValue(e: Expr, c: Expr): void;
  isSigned(e: Expr): boolean;
  isAtomic(e: Expr): boolean;
  getAlign(e: Expr): number;
}
export interface SIMDLoadApi {
  getOp(e: Expr): number;
  getPtr(e: Expr): Expr;
  getOffset(e: Expr): number;
  setOffset(e: Expr, o: number): void;
}
export interface SIMDLoadStoreLaneApi extends SIMDLoadApi {
  isStore(e: Expr): boolean;
  getVec(e: Expr): Expr;
}
export interface MemoryGrowApi {
  getDelta(e: Expr): Expr;
}
export interface MemoryCopyApi {
  getDest(e: Expr): Expr;
  getSource(e: Expr): Expr;
  getSize(e: Expr): Expr;
}
export interface MemoryFillApi {
  getDest(e: Expr): Expr;
  getValue(e: Expr): Expr;
  getSize(e: Expr): Expr;
}
export interface MemoryInitApi {
  getDest(e: Expr): Expr;
  getOffset(e: Expr): Expr;
  getSize(e: Expr): Expr;
}
export interface ValueApi {
  getValue(e: Expr): Expr;
}
export interface ConstApi {
  getValueI32(e: Expr): number;
  getValueI64(e: Expr): bigint;
  setValueI64(e: Expr, v: bigint): void;
  getValueF32(e: Expr): number;
  getValueF64(e: Expr): number;
}
export interface UnaryApi {
  getOp(e: Expr): number;
  getValue(e: Expr): Expr;
}
export interface BinaryApi {
  getOp(e: Expr): number;
  getLeft(e: Expr): Expr;
  getRight(e: Expr): Expr;
}
export interface SelectApi {
  getIfTrue(e: Expr): Expr;
  getIfFalse(e: Expr): Expr;
  getCondition(e: Expr): Expr;
}
export interface ExpressionApi {
  setType(e: Expr, type: Type): void;
}
export interface FunctionApi {
  getName(f: number): string;
  getParams(f: number): Type;
  getResults(f: number): Type;
  getNumVars(f: number): number;
  getVar(f: number, i: number): Type;
  getNumLocals(f: number): number;
  hasLocalName(f: number, i: number): boolean;
  getLocalName(f: number, i: number): string;
  getBody(f: number): Expr;
  setBody(f: number, body: Expr): void;
}

/** A child accessor pair of an expression class, looked up by name (`If`, `Condition`). */
type ExprMethod = (e: Expr, v?: Expr) => Expr;

interface BinaryenRuntime {
  Block: BlockApi;
  Loop: LoopApi;
  If: IfApi;
  Break: BreakApi;
  Switch: SwitchApi;
  Call: CallApi;
  CallIndirect: CallIndirectApi;
  Drop: ValueApi;
  Return: ValueApi;
  LocalGet: LocalApi;
  LocalSet: LocalApi;
  GlobalGet: GlobalApi;
  GlobalSet: GlobalApi;
  Load: MemAccessApi;
  Store: MemAccessApi;
  SIMDLoad: SIMDLoadApi;
  SIMDLoadStoreLane: SIMDLoadStoreLaneApi;
  MemoryGrow: MemoryGrowApi;
  MemoryCopy: MemoryCopyApi;
  MemoryFill: MemoryFillApi;
  MemoryInit: MemoryInitApi;
  Const: ConstApi;
  Unary: UnaryApi;
  Binary: BinaryApi;
  Select: SelectApi;
  TupleMake: OperandsApi;
  Function: FunctionApi;
  Expression: ExpressionApi;
  /** The C getters behind binaryen.getExpressionId/Type, called without the wrapper's extra frame. */
  _BinaryenExpressionGetId(expr: Expr): number;
  _BinaryenExpressionGetType(expr: Expr): Type;
  /** binaryen.js has the C call but no wrapper for it. */
  _BinaryenFunctionAddVar(func: number, type: Type): number;
  _BinaryenGetStart(module: number): number;
  _BinaryenFunctionSetType(func: number, heapType: number): void;
}

const runtime = binaryen as unknown as BinaryenRuntime & Record<string, unknown>;

export const Block = runtime.Block;
export const Loop = runtime.Loop;
export const If = runtime.If;
export const Break = runtime.Break;
export const Switch = runtime.Switch;
export const Call = runtime.Call;
export const CallIndirect = runtime.CallIndirect;
export const Drop = runtime.Drop;
export const Return = runtime.Return;
export const Expression = runtime.Expression;
export const LocalGet = runtime.LocalGet;
export const LocalSet = runtime.LocalSet;
export const GlobalGet = runtime.GlobalGet;
export const GlobalSet = runtime.GlobalSet;
export const Load = runtime.Load;
export const Store = runtime.Store;
export const SIMDLoad = runtime.SIMDLoad;
export const SIMDLoadStoreLane = runtime.SIMDLoadStoreLane;
export const MemoryGrow = runtime.MemoryGrow;
export const MemoryCopy = runtime.MemoryCopy;
export const MemoryFill = runtime.MemoryFill;
export const MemoryInit = runtime.MemoryInit;
export const Const = runtime.Const;
export const Unary = runtime.Unary;
export const Binary = runtime.Binary;
export const Select = runtime.Select;
export const TupleMake = runtime.TupleMake;
export const Func = runtime.Function;

/** An expression's kind (`Id` in ir.ts): the walks' most frequent call. */
export const expressionId: (expr: Expr) => number = runtime._BinaryenExpressionGetId;
export const expressionType: (expr: Expr) => Type = runtime._BinaryenExpressionGetType;

/** A numbering constant of the running binaryen (`LoopId`, `AddInt32`, ...). */
export function runtimeNumber(name: string): number {
  const value = runtime[name];
  if (typeof value !== 'number') throw new Error(`internal: binaryen has no constant ${name}`);
  return value;
}

/** The getter and setter of child `field` of expression class `kind` (`If`, `Condition`). */
export function childAccessors(kind: string, field: string): [get: ExprMethod, set: ExprMethod] {
  const cls = runtime[kind] as Partial<Record<string, ExprMethod>> | undefined;
  const get = cls?.[`get${field}`];
  const set = cls?.[`set${field}`];
  if (!get || !set) throw new Error(`internal: binaryen has no ${kind}.get${field}/set${field}`);
  return [get, set];
}

/** Adds a local to a function and returns its index. */
export function addVar(func: number, type: Type): number {
  return runtime._BinaryenFunctionAddVar(func, type);
}

/** The name of the module's start function, or null when it has none. */
export function startFunctionName(module: binaryen.Module): string | null {
  const start = runtime._BinaryenGetStart((module as unknown as { ptr: number }).ptr);
  return start === 0 ? null : binaryen.getFunctionInfo(start).name;
}

/** `i64.const` from one bigint (binaryen 132 takes it whole). */
export function i64Const(module: binaryen.Module, value: number | bigint): Expr {
  return module.i64.const(BigInt(value));
}

export function setConstI64(expr: Expr, value: number | bigint): void {
  Const.setValueI64(expr, BigInt(value));
}

/** Gives a function a new signature in place (its index and locals stay; new parameters shift its declared locals' indices). */
export function setFunctionType(func: number, params: readonly Type[], results: Type): void {
  const builder = new binaryen.TypeBuilder(1);
  builder.setSignatureType(0, binaryen.createType([...params]), results);
  const [heapType] = builder.buildAndDispose();
  if (heapType === undefined) throw new Error('internal: no signature type built');
  runtime._BinaryenFunctionSetType(func, heapType);
}
