// The state of the taint pass while it rewrites one function, and the label helpers every part of
// the pass shares: the shadow local of a program local, the label of a flat operand, joins, fresh
// copies of operands for shadow code.
import binaryen from 'binaryen';
import { GlobalGet, Id, LocalGet, addVar, childSlots, idOf, typeOf, type Expr } from '../ir.js';
import type { FunctionAnalysis } from '../sites.js';
import type { ControlPlan } from '../control-plan.js';
import type { ShadowCodegen, ShadowMemory } from './shadow-memory.js';
import type { FunctionSinks } from './taint-sinks.js';
import type { TaintLayout, TaintLoopSite, TaintOptions } from './taint-layout.js';
import type { StackFrame } from './taint-frame.js';
import type { FrameLabels } from './shadow-frame.js';

/** The block every `return` of an instrumented function branches out of (its exit code follows). */
export const EXIT_LABEL = 'taintlens$texit';

/** What all functions of the module share while the pass runs. */
export interface ModuleTaint {
  module: binaryen.Module;
  /** The layout being filled: site records are appended as functions are instrumented. */
  layout: TaintLayout;
  shadowMemory: ShadowMemory;
  /** Where program address 0 sits (memory-layout.ts moved the program's accesses up by it). */
  programBase: number;
  options: TaintOptions;
  /** Every tainted branch's control dependence: joins at post-dominators and the control label. */
  branchFlow: boolean;
  /** Values carried to a loop's next iteration take its exit conditions' labels. */
  loopFlow: boolean;
  /** A load joins its address's label. */
  joinPointers: boolean;
  /** Fixed label bits of library source names. */
  nameBits: Map<string, number>;
  /** Mutable (or exported) global → its shadow global. */
  globalsShadow: Map<string, string>;
  importInfo: Map<string, { key: string; params: number; results: number }>;
  /** Functions defined in the module (not imported). */
  defined: Set<string>;
  /** The next free byte of the sink table. */
  sinkCursor: { value: number };
  /** Whether an access or call was added by a pass that ran before this one (program-expressions.ts). */
  foreign: (expr: Expr) => boolean;
  /** The stack-pointer global (null: none known; no frame slots then). */
  stackPointer: string | null;
  /** Defined allocation functions (malloc, calloc, realloc, …): the address they return carries no label. */
  allocators: Set<string>;
  /** Defined functional math routines (pow, exp, sqrt, …): their result label is the union of their arguments'. */
  functional: Set<string>;
}

/** The control label of a function and the branch labels it is made of (taint-control.ts). */
export interface FunctionControl {
  /** The current control label: the caller's plus the non-exit branches control is inside. */
  label: number;
  /** The caller's control label (taintlens$ctl at entry). */
  callerLabel: number;
  /** Joins the labels of branches that decide which `return` runs (into the result label). */
  exitJoin: number;
  /** Per conditional branch: the local holding its label until its post-dominator. */
  branchLabels: Map<Expr, number>;
}

/** A loop's sink locals while the function runs (flushed into its context node). */
export interface LoopLocals {
  exit: number;
  headers: number;
  entries: number;
  site: TaintLoopSite;
}

export interface FunctionTaint {
  m: ModuleTaint;
  fn: FunctionAnalysis;
  func: number;
  /** Locals of this function another pass added for its own counters: no label, no shadow local. */
  foreignLocals: Set<number>;
  codegen: ShadowCodegen;
  /** Program local → its shadow (label) local. */
  shadow: Map<number, number>;
  /** The function's control-flow facts (CFG, post-dominators, natural loops). */
  plan: ControlPlan;
  /** Frame pointers and stores to the function's stack frame (taint-frame.ts). */
  frame: StackFrame;
  /** The frame's labels kept in locals (shadow-frame.ts); null: its labels are in shadow memory. */
  frameLabels: FrameLabels | null;
  /** Stores updating a counter in memory through the address it was read from (taint-counters.ts). */
  counters: Set<Expr>;
  control: FunctionControl;
  /** Loop sinks of this function and its calling-context node. */
  sinks: FunctionSinks;
  /** Loops met so far (the walk numbers them in site-table order) and their sink locals. */
  loopIndex: number;
  loopLocals: LoopLocals[];
  /** Branch and library-cost sink locals, flushed into the sink table. */
  siteLocals: Array<{ local: number; sink: number }>;
  /** Calls met so far (site-table order). */
  callIndex: number;
  /** The result value and its label, set by `return` (null for a function without results). */
  result: { value: number; label: number } | null;
  /** Labels the program branches walked so far jump to (taint-statements.ts: namedBlock). */
  branchTargets: Set<string>;
}

export function shadowOf(c: FunctionTaint, index: number): number {
  let s = c.shadow.get(index);
  if (s === undefined) {
    s = addVar(c.func, binaryen.i32);
    c.shadow.set(index, s);
  }
  return s;
}

export function tempIn(func: number, temps: Map<string, number>, type: number, key: string): number {
  const k = `${type}:${key}`;
  let t = temps.get(k);
  if (t === undefined) {
    t = addVar(func, type);
    temps.set(k, t);
  }
  return t;
}

/** The current control label, or null when only loops carry control dependence (it stays 0 then). */
export function controlLabel(c: FunctionTaint): Expr | null {
  return c.m.branchFlow ? c.m.module.local.get(c.control.label, binaryen.i32) : null;
}

/** Label of an operand in flat IR (a local.get or a constant); null means "no label". */
export function operandLabel(c: FunctionTaint, expr: Expr): Expr | null {
  const id = idOf(expr);
  if (id === Id.LocalGet)
    return c.foreignLocals.has(LocalGet.getIndex(expr))
      ? null
      : c.m.module.local.get(shadowOf(c, LocalGet.getIndex(expr)), binaryen.i32);
  if (id === Id.GlobalGet) {
    const shadow = c.m.globalsShadow.get(GlobalGet.getName(expr));
    return shadow ? c.m.module.global.get(shadow, binaryen.i32) : null;
  }
  if (id === Id.Const) return null;
  // Anything else in operand position (rare in flat IR): join its operands' labels.
  const parts = childSlots(expr).map((s) => operandLabel(c, s.expr));
  return orAll(c, parts);
}

export function orAll(c: FunctionTaint, parts: Array<Expr | null>): Expr | null {
  let acc: Expr | null = null;
  for (const p of parts) {
    if (p === null) continue;
    acc = acc === null ? p : c.m.module.i32.or(acc, p);
  }
  return acc;
}

export function orZero(c: FunctionTaint, e: Expr | null): Expr {
  return e ?? c.m.module.i32.const(0);
}

export function isDead(expr: Expr): boolean {
  return typeOf(expr) === binaryen.unreachable;
}

/** A fresh copy of a flat operand (local.get or const) for reuse in shadow code. */
export function copyOperand(c: FunctionTaint, expr: Expr): Expr {
  return copyFlat(c.m.module, expr);
}

export function copyFlat(module: binaryen.Module, expr: Expr): Expr {
  if (idOf(expr) === Id.LocalGet) return module.local.get(LocalGet.getIndex(expr), typeOf(expr));
  return module.copyExpression(expr);
}

/** The program's own static offset of a relocated access (Binaryen returns offsets past 2 GiB as negative numbers). */
export function programOffset(c: FunctionTaint, relocated: number): number {
  return (relocated >>> 0) - c.m.programBase;
}

/** The program address of a relocated bulk-operation address operand. */
export function programAddress(c: FunctionTaint, relocated: Expr): Expr {
  return c.m.module.i32.sub(copyOperand(c, relocated), c.m.module.i32.const(c.m.programBase | 0));
}
