// Dynamic taint analysis (Perf-Taint on WebAssembly): which marked parameters reach which loop exit
// conditions and conditional branches.
//
// Labels are i32 bitsets (one bit per parameter, union = `or`). Every function of the program is
// first flattened by Binaryen (three-address form: operands are local.get/const, blocks carry no
// values), then each statement gets its shadow computation inlined next to it:
//   - every local has a shadow local, every mutable global a shadow global;
//   - linear memory has labels in a reserved region inside the module's own memory, one i32 per
//     aligned word or per byte (shadow-memory.ts); a load joins the labels of the bytes it reads, a
//     store sets them, memory.copy/fill/init update the shadow range;
//   - calls pass argument labels in globals `taintlens$arg<k>` and the result label in
//     `taintlens$ret` (uniform for direct, indirect and exported calls); imports follow the library
//     database (default: the result carries the union of the arguments' labels);
//   - control flow (from the function's CFG, instrument/cfg.ts): a value merging definitions
//     selected by a tainted condition carries the condition's label (at the branch's immediate
//     post-dominator, for locals assigned in between; at a natural loop's back-edge for values
//     carried into the next iteration, which then carry the labels of the loop's exit conditions).
//     Stores and global writes also join the current control label (`ctl`), which holds a
//     branch's label until its post-dominator. Loop exit conditions (branches that can leave a
//     natural loop) never enter `ctl`: a loop's own exit condition does not taint its body, so a
//     constant loop nested in an n-loop stays constant. `implicitFlow: false` drops all of this.
// Sinks: per loop and calling context (a full call path, taint-sinks.ts) the labels of each of its
// exit conditions and the number of header executions; per other conditional branch its labels and
// whether it ran; per import call with a library cost the labels of the named arguments. They
// accumulate in locals and are flushed at function exit (and before calls that may not return):
// loops into the invocation's context node, the others into a reserved sink table. After the
// rewrite Binaryen's function optimizer removes the copies flattening introduced.
import binaryen from 'binaryen';
import {
  Block, Break, Call, Drop, Func, GlobalGet, GlobalSet, Id, If, Load, LocalGet, LocalSet, Loop, Store, Switch,
  addVar, childSlots, idOf, i64Const, typeOf, type Expr,
} from '../ir.js';
import type { ModuleAnalysis, FunctionAnalysis } from '../sites.js';
import type { SourceLocation } from '../debug/locations.js';
import { planControl, type BranchPlan, type ControlPlan } from '../control-plan.js';
import { MEMORY_GROW_FUNCTION, PROGRAM_PAGES_GLOBAL, type MemoryLayout, type RegionRequest } from '../memory-layout.js';
import { ContextTree } from '../context-tree.js';
import { FunctionSinks, TREE_NAMES, CALL_SLOTS, functionsWithNodes, type TaintLoopSite, type TaintContextLayout } from './taint-sinks.js';
import { versionAlignedLoops } from './shadow-versioning.js';
import type { InstrumentationLocals } from '../program-expressions.js';
import { placeShadow, shadowMemory, shadowRegion, SHADOW_FUNCTIONS, type ShadowCodegen, type ShadowGranularity, type ShadowMemory, type ShadowPlacement } from './shadow-memory.js';

export const TAINT_SCHEMA = 'taintlens/taint-sites@1';
export const ARG_GLOBAL = (k: number) => `taintlens$arg${k}`;
export const RET_GLOBAL = 'taintlens$ret';
export const CTL_GLOBAL = 'taintlens$ctl';
export const SHADOW_GLOBAL_PREFIX = 'taintlens$shadow$';
const EXIT_LABEL = 'taintlens$texit';

/** Sink records of branches and library-cost calls: 8 bytes (label | executed<<32). Loops: taint-sinks.ts. */
export const SITE_SINK_BYTES = 8;
export type { TaintLoopSite, TaintContextLayout };

/** How a host import propagates labels (the library database, already validated). */
export interface ImportRule {
  /** Result label: 'union' of the arguments (default) or 'none'. */
  result?: 'union' | 'none';
  /** Sources: a named label written to the result or to the memory an argument points to. */
  sources?: Array<{ label: string; result?: boolean; arg?: number; bytes?: number; bytesArg?: number }>;
  /** Cost: the call's volume depends on these parameters and on the labels of these arguments. */
  cost?: { params?: string[]; args?: number[] };
}

export interface TaintOptions {
  /** Rules per import, keyed `module.name`. */
  library?: Record<string, ImportRule>;
  /** Names with fixed label bits (bit i = names[i]); more are assigned at run time. */
  names?: string[];
  /** Skip Binaryen's optimizer after instrumenting (for debugging and measurements). */
  noOptimize?: boolean;
  /** Bytes reserved for the sink table (default 4 MiB). */
  sinkBytes?: number;
  /** Labels per aligned 4-byte word (default, fast) or per byte (exact for narrow stores). */
  granularity?: ShadowGranularity;
  /** Bytes reserved for the calling-context tree holding the loop sinks (default 16 MiB). */
  contextBytes?: number;
  /** Control (implicit) flow as well as data flow (default true); false: data flow only, as DFSan. */
  implicitFlow?: boolean;
  /** Skip alignment versioning of loops (shadow-versioning.ts; for measurements). */
  noVersioning?: boolean;
}

export interface TaintBranchSite {
  id: string; function: string; loop: string | null; kind: 'if' | 'br_if' | 'br_table'; sink: number;
  /** The branch's source line, from debug info. */
  location?: SourceLocation | null;
}
export interface TaintImportSite { id: string; call: string | null; function: string; loop: string | null; import: string; params: string[]; sink: number }

export interface TaintLayout {
  schema: string;
  shadow: ShadowPlacement;
  sinks: { base: number; bytes: number };
  /** The calling-context tree holding the loop sinks. */
  contexts: TaintContextLayout;
  /** Fixed label names (bit order) baked into the module by library sources. */
  names: string[];
  loops: TaintLoopSite[];
  branches: TaintBranchSite[];
  imports: TaintImportSite[];
  /** Exported argument-label globals, index k for argument k of any export. */
  argGlobals: string[];
  /** Exported global name → exported name of its shadow global. */
  shadowGlobals: Record<string, string>;
  maxArgs: number;
  /** Exported function name → internal (site table) name. */
  exports: Record<string, string>;
}

export function taintRegions(sinkBytes: number, granularity: ShadowGranularity = 'word', contextBytes = 16 << 20): RegionRequest[] {
  return [{ name: 'taint', bytes: sinkBytes }, { name: 'taint-contexts', bytes: contextBytes }, shadowRegion(granularity)];
}

interface Ctx {
  module: binaryen.Module;
  layout: TaintLayout;
  shadowMemory: ShadowMemory;
  codegen: ShadowCodegen;
  /** Where program address 0 sits (memory-layout.ts moved the program's accesses up by it). */
  programBase: number;
  fn: FunctionAnalysis;
  func: number;
  originalLocals: number;
  shadow: Map<number, number>;
  temps: Map<string, number>;
  ctl: number;
  /** The caller's control label (taintlens$ctl at entry). */
  ctlIn: number;
  /** Joins the labels of branches that decide which `return` runs (into the result label). */
  exitJoin: number | null;
  /** The function's control-flow facts (CFG, post-dominators, natural loops). */
  plan: ControlPlan;
  /** Per conditional branch: the local holding its label until its post-dominator. */
  branchLabels: Map<Expr, number>;
  /** Control (implicit) flow on: joins and the control label; off: data flow only. */
  implicitFlow: boolean;
  loopIndex: number;
  loopLocals: Array<{ exit: number; headers: number; entries: number; site: TaintLoopSite; carried: number[] | null; expr: Expr }>;
  /** Loop sinks of this function and its calling-context node. */
  sinks: FunctionSinks;
  siteLocals: Array<{ local: number; sink: number }>;
  callIndex: number;
  rv: number | null;
  rl: number | null;
  getCounts: Map<number, number>;
  sinkCursor: { value: number };
  globalsShadow: Map<string, string>;
  importInfo: Map<string, { key: string; params: number; results: number }>;
  defined: Set<string>;
  options: TaintOptions;
  nameBits: Map<string, number>;
  /** Whether an access or call was added by a pass that ran before this one (program-expressions.ts). */
  foreign: (expr: Expr) => boolean;
  /** Locals of this function another pass added for its own counters: no label, no shadow local. */
  foreignLocals: Set<number>;
}

const NO_LOCALS: Set<number> = new Set();

export function applyTaint(
  module: binaryen.Module, analysis: ModuleAnalysis, layout: MemoryLayout, options: TaintOptions = {},
  /** The program's own accesses and calls and the other passes' own locals, when those passes ran first. */
  program?: { expressions: Set<Expr>; locals: InstrumentationLocals },
): TaintLayout {
  const foreign = program ? (expr: Expr) => !program.expressions.has(expr) : () => false;
  const shadow = shadowMemory(placeShadow(options.granularity ?? 'word', layout.regions.shadow!, layout.programBase));
  const sinkRegion = layout.regions.taint!;
  const names = [...(options.names ?? [])];
  const nameBits = new Map<string, number>();
  names.forEach((n, i) => nameBits.set(n, i));
  // Library source labels get fixed bits too.
  for (const rule of Object.values(options.library ?? {})) {
    for (const source of rule.sources ?? []) {
      if (!nameBits.has(source.label)) {
        nameBits.set(source.label, names.length);
        names.push(source.label);
      }
    }
  }
  if (names.length > 32) throw new Error(`at most 32 parameters can be tracked (got ${names.length})`);
  const skip = new Set([MEMORY_GROW_FUNCTION, ...SHADOW_FUNCTIONS]);
  const skipped = (name: string) => skip.has(name) || name.startsWith('taintlens$');
  const tree = new ContextTree(module, TREE_NAMES, layout.regions['taint-contexts']!, CALL_SLOTS, analysis.functions.length);
  const withNodes = functionsWithNodes(analysis, skipped);
  const contexts: TaintContextLayout = { ...tree.layout, callSlots: CALL_SLOTS, functions: analysis.functions.map((f) => ({ name: f.site.name, nodeBytes: 0 })) };
  const out: TaintLayout = {
    schema: TAINT_SCHEMA, shadow: shadow.placement, sinks: sinkRegion, contexts, names, loops: [], branches: [], imports: [],
    argGlobals: [], shadowGlobals: {}, maxArgs: 0, exports: {},
  };
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind === binaryen.ExternalFunction) out.exports[info.name] = info.value;
  }
  const i32 = binaryen.i32;

  // Imports and defined functions.
  const importInfo = new Map<string, { key: string; params: number; results: number }>();
  const defined = new Set<string>();
  let maxArgs = 0;
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    const params = binaryen.expandType(info.params).length;
    maxArgs = Math.max(maxArgs, params);
    if (info.module) importInfo.set(info.name, { key: `${info.module}.${info.base}`, params, results: binaryen.expandType(info.results).length });
    else defined.add(info.name);
  }
  out.maxArgs = maxArgs;
  for (let k = 0; k < maxArgs; k++) {
    module.addGlobal(ARG_GLOBAL(k), i32, true, module.i32.const(0));
    module.addGlobalExport(ARG_GLOBAL(k), ARG_GLOBAL(k));
    out.argGlobals.push(ARG_GLOBAL(k));
  }
  module.addGlobal(RET_GLOBAL, i32, true, module.i32.const(0));
  module.addGlobal(CTL_GLOBAL, i32, true, module.i32.const(0));

  // Shadow globals for mutable globals (ours excluded).
  const globalsShadow = new Map<string, string>();
  const exportedGlobals = new Map<string, string>();
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind === binaryen.ExternalGlobal) exportedGlobals.set(info.value, info.name);
  }
  const globalCount = module.getNumGlobals();
  for (let i = 0; i < globalCount; i++) {
    const info = binaryen.getGlobalInfo(module.getGlobalByIndex(i));
    if (info.name.startsWith('taintlens$') || info.name === PROGRAM_PAGES_GLOBAL) continue;
    const exportName = exportedGlobals.get(info.name);
    if (!info.mutable && !exportName) continue;
    const shadowName = `${SHADOW_GLOBAL_PREFIX}${i}`;
    module.addGlobal(shadowName, i32, true, module.i32.const(0));
    if (info.mutable) globalsShadow.set(info.name, shadowName);
    if (exportName) {
      module.addGlobalExport(shadowName, `${SHADOW_GLOBAL_PREFIX}${exportName}`);
      out.shadowGlobals[exportName] = `${SHADOW_GLOBAL_PREFIX}${exportName}`;
      globalsShadow.set(info.name, shadowName);
    }
  }

  shadow.addHelpers(module);
  const sinkCursor = { value: sinkRegion.base + 64 };
  for (const fn of analysis.functions) {
    if (skipped(fn.site.name)) continue;
    const body = Func.getBody(fn.func);
    if (!body) continue;
    // Locals that exist before flattening are the program's own; flatten only appends temporaries.
    const originalLocals = Func.getNumLocals(fn.func);
    module.runPassesOnFunction(fn.func, ['flatten']);
    const temps = new Map<string, number>();
    const sinks = new FunctionSinks(module, fn.func, tree, withNodes.has(fn.site.name), fn.callExprs.length);
    contexts.functions[fn.site.index]!.nodeBytes = instrumentFunction({
      module, layout: out, shadowMemory: shadow, codegen: {
        module,
        temp: (type, key) => tempIn(fn.func, temps, type, key),
        copy: (expr) => copyFlat(module, expr),
      },
      programBase: layout.programBase, fn, func: fn.func, originalLocals,
      shadow: new Map(), temps, ctl: -1, ctlIn: -1, exitJoin: null, plan: null as unknown as ControlPlan, branchLabels: new Map(), implicitFlow: options.implicitFlow !== false, loopIndex: 0, loopLocals: [], siteLocals: [],
      callIndex: 0, rv: null, rl: null, getCounts: new Map(), sinkCursor, sinks, globalsShadow, importInfo, defined, options, nameBits, foreign,
      foreignLocals: program?.locals.get(fn.func) ?? NO_LOCALS,
    });
  }
  if (sinkCursor.value > sinkRegion.base + sinkRegion.bytes) throw new Error('internal: taint sink table overflow');
  return out;
}

/** Instruments one function; returns the size of its context nodes (0: it keeps none). */
function instrumentFunction(c: Ctx): number {
  const { module, func, fn } = c;
  const i32 = binaryen.i32;
  c.ctl = addVar(func, i32);
  countGets(c, Func.getBody(func));
  const resultType = Func.getResults(func);
  if (resultType !== binaryen.none) {
    c.rv = addVar(func, resultType);
    c.rl = addVar(func, i32);
  }
  c.ctlIn = addVar(func, i32);
  c.exitJoin = addVar(func, i32);
  c.plan = planControl(Func.getBody(func), c.originalLocals, c.getCounts);
  if (c.plan.cfg.loops.length !== fn.loopExprs.length) {
    throw new Error(`internal: the CFG of ${fn.site.name} has ${c.plan.cfg.loops.length} loops, the site table ${fn.loopExprs.length}`);
  }
  const bodyStmts = stmtThen(c, Func.getBody(func));
  // After the exit block: returns branch to its end.
  const atExit = nodeStart(c, c.plan.cfg.exit);
  if (c.loopIndex !== fn.loopExprs.length) {
    throw new Error(`internal: taint pass found ${c.loopIndex} loops in ${fn.site.name}, the site table ${fn.loopExprs.length}`);
  }
  const params = binaryen.expandType(Func.getParams(func));
  const prologue: Expr[] = [module.local.set(c.ctlIn, module.global.get(CTL_GLOBAL, i32)), module.local.set(c.ctl, module.local.get(c.ctlIn, i32))];
  params.forEach((_, k) => {
    const s = c.shadow.get(k);
    if (s !== undefined) prologue.push(module.local.set(s, module.global.get(ARG_GLOBAL(k), i32)));
  });
  const tail: Expr[] = [...flush(c)];
  const node = c.sinks.finish(fn.site.index);
  prologue.push(...node.prologue);
  tail.push(...node.epilogue);
  if (c.rv !== null) {
    tail.push(module.global.set(RET_GLOBAL, module.i32.or(module.local.get(c.rl!, i32), module.local.get(c.exitJoin!, i32))));
    tail.push(module.local.get(c.rv, resultType));
  }
  const exitBlock = module.block(EXIT_LABEL, bodyStmts, binaryen.none);
  Func.setBody(func, module.block(null, [...prologue, exitBlock, ...atExit, ...tail], resultType));
  // Before the optimizer: coalesce-locals would merge pointer locals with label locals.
  if (!c.options.noVersioning) versionAlignedLoops(module, func, c.shadowMemory);
  assertTree(Func.getBody(func), fn.site.name);
  if (!c.options.noOptimize) {
    const big = binaryen.getFunctionInfo(func).vars.length > COALESCE_LOCALS_LIMIT;
    module.runPassesOnFunction(func, big ? BOUNDED_PASSES : OPTIMIZE_PASSES);
    if (dropUnreadLabelLoads(module, Func.getBody(func), c.shadowMemory)) module.runPassesOnFunction(func, big ? ['vacuum'] : CLEANUP_PASSES);
  }
  return node.nodeBytes;
}

/**
 * Binaryen's passes assume a tree: an expression reused in two places is rewritten twice (local
 * renumbering then maps its index twice). Shadow code must build fresh expressions; this checks it.
 */
function assertTree(root: Expr, where: string): void {
  const seen = new Set<Expr>();
  const stack = [root];
  while (stack.length > 0) {
    const expr = stack.pop()!;
    if (seen.has(expr)) throw new Error(`internal: taint pass reused an expression in ${where}`);
    seen.add(expr);
    for (const slot of childSlots(expr)) stack.push(slot.expr);
  }
}

// Only passes that neither fold values nor move code: Binaryen treats all traps as one and NaN bits
// as free, so precompute / optimize-instructions / simplify-locals could change which trap fires
// or a NaN's sign in the program's own code (found by differential fuzzing). The engine's
// optimizing tier removes the copies flattening leaves behind anyway.
// coalesce-locals drops a set nobody reads; vacuum then drops its computation, which can leave the
// set before it unread: three rounds remove the label chains of address arithmetic (pointer labels
// are never read), 10% of the code of a typical kernel loop.
const OPTIMIZE_PASSES = [
  'vacuum', 'reorder-locals', 'remove-unused-brs', 'merge-blocks', 'coalesce-locals', 'vacuum',
  'merge-blocks', 'remove-unused-brs', 'remove-unused-names', 'vacuum',
  'coalesce-locals', 'vacuum', 'coalesce-locals', 'vacuum',
];

const CLEANUP_PASSES = ['vacuum', 'coalesce-locals', 'vacuum'];

// coalesce-locals is superlinear in the locals of a flattened function (its interference graph):
// measured on one instrumented function, 2,534 locals 2.2 s for one round, 10k locals 345 s for
// the list above. Above this many locals the function keeps its dead label copies (slower
// instrumented code, same results) and gets only the linear passes.
export const COALESCE_LOCALS_LIMIT = 2000;
const BOUNDED_PASSES = ['vacuum', 'reorder-locals', 'remove-unused-brs', 'merge-blocks', 'remove-unused-names', 'vacuum'];

/** Replaces `drop(label load)` (a label only a pointer had) by nop; true if any was found. */
function dropUnreadLabelLoads(module: binaryen.Module, root: Expr, shadow: ShadowMemory): boolean {
  let found = false;
  const stack = [root];
  while (stack.length > 0) {
    const expr = stack.pop()!;
    for (const slot of childSlots(expr)) {
      if (idOf(slot.expr) === Id.Drop && shadow.isLabelLoad(Drop.getValue(slot.expr))) {
        slot.replace(module.nop());
        found = true;
      } else {
        stack.push(slot.expr);
      }
    }
  }
  return found;
}

/** Flushes the function's sink locals: loops into its context node, other sites into the sink table. */
function flush(c: Ctx, reset = false): Expr[] {
  const { module } = c;
  const i64 = binaryen.i64;
  const out: Expr[] = [c.sinks.flush(reset)];
  for (const site of c.siteLocals) {
    out.push(module.i64.store(site.sink, 8, module.i32.const(0), module.i64.or(module.i64.load(site.sink, 8, module.i32.const(0)), module.local.get(site.local, i64))));
  }
  if (reset) {
    for (const loop of c.loopLocals) out.push(module.local.set(loop.exit, module.i32.const(0)));
    for (const site of c.siteLocals) out.push(module.local.set(site.local, i64Const(module, 0)));
  }
  return out;
}

/** Sink-local resets at function entry are implicit: Wasm locals start at zero. */

function shadowOf(c: Ctx, index: number): number {
  let s = c.shadow.get(index);
  if (s === undefined) {
    s = addVar(c.func, binaryen.i32);
    c.shadow.set(index, s);
  }
  return s;
}

function tempIn(func: number, temps: Map<string, number>, type: number, key: string): number {
  const k = `${type}:${key}`;
  let t = temps.get(k);
  if (t === undefined) {
    t = addVar(func, type);
    temps.set(k, t);
  }
  return t;
}

/** Label of an operand in flat IR (a local.get or a constant); null means "no label". */
function operandLabel(c: Ctx, expr: Expr): Expr | null {
  const id = idOf(expr);
  if (id === Id.LocalGet) return c.foreignLocals.has(LocalGet.getIndex(expr)) ? null : c.module.local.get(shadowOf(c, LocalGet.getIndex(expr)), binaryen.i32);
  if (id === Id.GlobalGet) {
    const shadow = c.globalsShadow.get(GlobalGet.getName(expr));
    return shadow ? c.module.global.get(shadow, binaryen.i32) : null;
  }
  if (id === Id.Const) return null;
  // Anything else in operand position (rare in flat IR): join its operands' labels.
  const parts = childSlots(expr).map((s) => operandLabel(c, s.expr));
  return orAll(c, parts);
}

function orAll(c: Ctx, parts: Array<Expr | null>): Expr | null {
  let acc: Expr | null = null;
  for (const p of parts) {
    if (p === null) continue;
    acc = acc === null ? p : c.module.i32.or(acc, p);
  }
  return acc;
}

function orZero(c: Ctx, e: Expr | null): Expr {
  return e ?? c.module.i32.const(0);
}

function isDead(expr: Expr): boolean {
  return typeOf(expr) === binaryen.unreachable;
}

function bytesOfSimdLoad(op: number): number {
  const b = binaryen as unknown as Record<string, number>;
  if (op === b.Load8SplatVec128) return 1;
  if (op === b.Load16SplatVec128) return 2;
  if (op === b.Load32SplatVec128 || op === b.Load32ZeroVec128) return 4;
  return 8;
}

/** A fresh copy of a flat operand (local.get or const) for reuse in shadow code. */
function copyOperand(c: Ctx, expr: Expr): Expr {
  return copyFlat(c.module, expr);
}

function copyFlat(module: binaryen.Module, expr: Expr): Expr {
  if (idOf(expr) === Id.LocalGet) return module.local.get(LocalGet.getIndex(expr), typeOf(expr));
  return module.copyExpression(expr);
}

/** The program's own static offset of a relocated access (Binaryen returns offsets past 2 GiB as negative numbers). */
function programOffset(c: Ctx, relocated: number): number {
  return (relocated >>> 0) - c.programBase;
}

/** The program address of a relocated bulk-operation address operand. */
function programAddress(c: Ctx, relocated: Expr): Expr {
  return c.module.i32.sub(copyOperand(c, relocated), c.module.i32.const(c.programBase | 0));
}

// ---------------------------------------------------------------------------------------------
// Statements

/** Statements another pass may have added: its stores and helper calls are left as they are. */
const FOREIGN_STATEMENTS = new Set<number>([Id.Store, Id.SIMDLoadStoreLane, Id.Call, Id.CallIndirect, Id.MemoryCopy, Id.MemoryFill, Id.MemoryInit]);

function stmt(c: Ctx, s: Expr): Expr[] {
  const id = idOf(s);
  const { module } = c;
  const i32 = binaryen.i32;
  if (id === Id.Block) return blockStmt(c, s);
  if (id === Id.Loop) return loopStmt(c, s);
  if (id === Id.If) return ifStmt(c, s);
  if (id === Id.Break) return breakStmt(c, s);
  if (id === Id.Switch) return switchStmt(c, s);
  if (id === Id.Return) return returnStmt(c, s);
  if (id === Id.LocalSet && c.foreignLocals.has(LocalSet.getIndex(s))) return [s];
  if (id === Id.LocalSet) {
    const index = LocalSet.getIndex(s);
    const value = LocalSet.getValue(s);
    if (LocalSet.isTee(s)) {
      // Not produced by flatten; handle conservatively as set + label.
      return [s];
    }
    const sv = shadowOf(c, index);
    const vid = idOf(value);
    if ((vid === Id.Call || vid === Id.CallIndirect) && c.foreign(value)) return [s, module.local.set(sv, module.i32.const(0))];
    if (vid === Id.Call || vid === Id.CallIndirect) {
      const { pre, post } = callShadow(c, value);
      return [...pre, s, ...post(sv)];
    }
    if (isDead(value)) return [s];
    const label = valueLabel(c, value);
    return [s, module.local.set(sv, orZero(c, label))];
  }
  if (id === Id.GlobalSet) {
    const shadow = c.globalsShadow.get(GlobalSet.getName(s));
    if (!shadow) return [s];
    const label = orAll(c, [operandLabel(c, GlobalSet.getValue(s)), module.local.get(c.ctl, i32)]);
    return [s, module.global.set(shadow, orZero(c, label))];
  }
  if (c.foreign(s) && FOREIGN_STATEMENTS.has(id)) return [s];
  if (id === Id.Drop && c.foreign(Drop.getValue(s)) && FOREIGN_STATEMENTS.has(idOf(Drop.getValue(s)))) return [s];
  if (id === Id.Store) {
    const ptr = Store.getPtr(s);
    const value = Store.getValue(s);
    if (isDead(s)) return [s];
    const label = orZero(c, orAll(c, [operandLabel(c, value), module.local.get(c.ctl, i32)]));
    return [s, ...c.shadowMemory.store(c.codegen, ptr, programOffset(c, Store.getOffset(s)), Store.getBytes(s), label)];
  }
  if (id === Id.SIMDLoadStoreLane) {
    const api = (binaryen as unknown as { SIMDLoadStoreLane: { isStore(e: Expr): boolean; getPtr(e: Expr): Expr; getVec(e: Expr): Expr; getOffset(e: Expr): number; getOp(e: Expr): number } }).SIMDLoadStoreLane;
    if (api.isStore(s) && !isDead(s)) {
      const b = binaryen as unknown as Record<string, number>;
      const op = api.getOp(s);
      const bytes = op === b.Store8LaneVec128 ? 1 : op === b.Store16LaneVec128 ? 2 : op === b.Store32LaneVec128 ? 4 : 8;
      const label = orZero(c, orAll(c, [operandLabel(c, api.getVec(s)), module.local.get(c.ctl, i32)]));
      return [s, ...c.shadowMemory.store(c.codegen, api.getPtr(s), programOffset(c, api.getOffset(s)), bytes, label)];
    }
    return [s];
  }
  if (id === Id.Call || id === Id.CallIndirect) {
    const { pre, post } = callShadow(c, s);
    return [...pre, s, ...post(null)];
  }
  if (id === Id.Drop) {
    const value = Drop.getValue(s);
    const vid = idOf(value);
    if (vid === Id.Call || vid === Id.CallIndirect) {
      const { pre, post } = callShadow(c, value);
      return [...pre, s, ...post(null)];
    }
    return [s];
  }
  if (id === Id.MemoryCopy && !isDead(s)) {
    const api = (binaryen as unknown as { MemoryCopy: { getDest(e: Expr): Expr; getSource(e: Expr): Expr; getSize(e: Expr): Expr } }).MemoryCopy;
    return [s, c.shadowMemory.copy(c.codegen, programAddress(c, api.getDest(s)), programAddress(c, api.getSource(s)), copyOperand(c, api.getSize(s)))];
  }
  if (id === Id.MemoryFill && !isDead(s)) {
    const api = (binaryen as unknown as { MemoryFill: { getDest(e: Expr): Expr; getValue(e: Expr): Expr; getSize(e: Expr): Expr } }).MemoryFill;
    const label = orZero(c, orAll(c, [operandLabel(c, api.getValue(s)), module.local.get(c.ctl, i32)]));
    return [s, c.shadowMemory.fill(c.codegen, programAddress(c, api.getDest(s)), label, copyOperand(c, api.getSize(s)))];
  }
  if (id === Id.MemoryInit && !isDead(s)) {
    const api = (binaryen as unknown as { MemoryInit: { getDest(e: Expr): Expr; getSize(e: Expr): Expr } }).MemoryInit;
    return [s, c.shadowMemory.fill(c.codegen, programAddress(c, api.getDest(s)), module.local.get(c.ctl, i32), copyOperand(c, api.getSize(s)))];
  }
  return [s];
}

/** Label of a value expression in a flat `local.set` (not a call). */
function valueLabel(c: Ctx, value: Expr): Expr | null {
  const id = idOf(value);
  if (id === Id.Const) return null;
  if ((id === Id.Load || id === Id.SIMDLoad || id === Id.SIMDLoadStoreLane) && c.foreign(value)) return null;
  if (id === Id.LocalGet || id === Id.GlobalGet) return operandLabel(c, value);
  if (id === Id.Load) {
    if (Load.isAtomic(value)) return null;
    return c.shadowMemory.load(c.codegen, Load.getPtr(value), programOffset(c, Load.getOffset(value)), Load.getBytes(value));
  }
  if (id === Id.SIMDLoad) {
    const api = (binaryen as unknown as { SIMDLoad: { getOp(e: Expr): number; getPtr(e: Expr): Expr; getOffset(e: Expr): number } }).SIMDLoad;
    return c.shadowMemory.load(c.codegen, api.getPtr(value), programOffset(c, api.getOffset(value)), bytesOfSimdLoad(api.getOp(value)));
  }
  if (id === Id.SIMDLoadStoreLane) {
    const api = (binaryen as unknown as { SIMDLoadStoreLane: { getPtr(e: Expr): Expr; getVec(e: Expr): Expr; getOffset(e: Expr): number; getOp(e: Expr): number } }).SIMDLoadStoreLane;
    const b = binaryen as unknown as Record<string, number>;
    const op = api.getOp(value);
    const bytes = op === b.Load8LaneVec128 ? 1 : op === b.Load16LaneVec128 ? 2 : op === b.Load32LaneVec128 ? 4 : 8;
    return orAll(c, [operandLabel(c, api.getVec(value)), c.shadowMemory.load(c.codegen, api.getPtr(value), programOffset(c, api.getOffset(value)), bytes)]);
  }
  // Every other value-producing instruction: the union of its operands' labels.
  return orAll(c, childSlots(value).map((slot) => operandLabel(c, slot.expr)));
}

// ---------------------------------------------------------------------------------------------
// Calls

function callShadow(c: Ctx, call: Expr): { pre: Expr[]; post: (resultShadow: number | null) => Expr[] } {
  const { module } = c;
  const i32 = binaryen.i32;
  const id = idOf(call);
  const operands = childSlots(call).map((s) => s.expr);
  const args = id === Id.CallIndirect ? operands.slice(0, -1) : operands;
  const argLabels = args.map((a) => operandLabel(c, a));
  const target = id === Id.Call ? Call.getTarget(call) : null;
  if (target === MEMORY_GROW_FUNCTION) {
    // memory.grow, rewritten by the layout: the result depends on the delta.
    return { pre: [], post: (sv) => (sv === null ? [] : [module.local.set(sv, orZero(c, argLabels[0] ?? null))]) };
  }
  const siteCall = c.fn.site.calls[c.callIndex++] ?? null;
  if (isDead(call)) return { pre: [], post: () => [] };
  const imported = target !== null ? c.importInfo.get(target) : undefined;
  if (target !== null && (imported || !c.defined.has(target) || target.startsWith('taintlens$'))) {
    return importShadow(c, call, target, imported?.key ?? target, args, argLabels, siteCall);
  }
  const pre: Expr[] = argLabels.map((label, k) => module.global.set(ARG_GLOBAL(k), orZero(c, label)));
  pre.push(module.global.set(CTL_GLOBAL, module.local.get(c.ctl, i32)));
  pre.push(...c.sinks.announce(c.callIndex - 1));
  if (id === Id.CallIndirect) {
    // A table may hold an import, which does not set the result label: default to the union.
    pre.push(module.global.set(RET_GLOBAL, orZero(c, orAll(c, args.map((a) => operandLabel(c, a))))));
  }
  return {
    pre,
    post: (sv) => (sv === null ? [] : [module.local.set(sv, module.global.get(RET_GLOBAL, i32))]),
  };
}

function importShadow(
  c: Ctx, call: Expr, target: string, key: string, args: Expr[], argLabels: Array<Expr | null>, siteCall: string | null,
): { pre: Expr[]; post: (sv: number | null) => Expr[] } {
  const { module } = c;
  const i32 = binaryen.i32;
  const i64 = binaryen.i64;
  const rule = c.options.library?.[key] ?? c.options.library?.[target];
  // A host function may call back into an export: that entry comes from outside, not from this call site.
  const pre: Expr[] = [c.sinks.external()];
  const postFixed: Expr[] = [];
  // Calls that may not return (process exit, aborts) lose this frame's sinks: flush first.
  if (/^(wasi_\w+\.proc_exit|env\.abort|env\.exit)$/.test(key)) pre.push(...flush(c, true));
  let resultLabel: Expr | null = rule?.result === 'none' ? null : orAll(c, argLabels);
  for (const source of rule?.sources ?? []) {
    const bit = 1 << c.nameBits.get(source.label)!;
    if (source.result) resultLabel = orAll(c, [resultLabel, module.i32.const(bit)]);
    if (source.arg !== undefined && args[source.arg]) {
      const ptr = args[source.arg]!;
      const bytesArg = source.bytesArg !== undefined ? args[source.bytesArg] : undefined;
      if (bytesArg) {
        postFixed.push(c.shadowMemory.fill(c.codegen, copyOperand(c, ptr), module.i32.const(bit), copyOperand(c, bytesArg)));
      } else {
        postFixed.push(...c.shadowMemory.store(c.codegen, ptr, 0, source.bytes ?? 4, module.i32.const(bit)));
      }
    }
  }
  if (rule?.cost) {
    const sink = c.sinkCursor.value;
    c.sinkCursor.value += SITE_SINK_BYTES;
    const loop = c.plan.loopOf(call);
    const site: TaintImportSite = {
      id: `I${c.layout.imports.length}`, call: siteCall, function: c.fn.site.name,
      loop: loop >= 0 ? c.fn.site.loops[loop]! : null, import: key, params: rule.cost.params ?? [], sink,
    };
    c.layout.imports.push(site);
    const local = addVar(c.func, i64);
    c.siteLocals.push({ local, sink });
    // Fresh label expressions: argLabels already sit in the result label, and a tree must not share nodes.
    const label = orZero(c, orAll(c, (rule.cost.args ?? []).map((k) => (args[k] ? operandLabel(c, args[k]!) : null))));
    pre.push(module.local.set(local, module.i64.or(module.local.get(local, i64), module.i64.or(module.i64.extend_u(label), i64Const(module, 1n << 32n)))));
  }
  const resultValue = resultLabel;
  return {
    pre,
    post: (sv) => [...postFixed, ...(sv === null ? [] : [module.local.set(sv, orZero(c, resultValue))])],
  };
  void i32;
}

// ---------------------------------------------------------------------------------------------
// Control flow
//
// Structure comes from the function's CFG (control-plan.ts), not from the nesting of constructs.
// Every conditional branch b keeps its condition's label in a local L_b from when it runs until
// control reaches its immediate post-dominator P. At P the locals assigned between b and P join
// L_b (implicit flow through the merge, whichever side assigned them), L_b is cleared, and the
// control label is recomputed as the caller's plus the L_b of the non-exit branches P is still
// inside. A branch that can leave a natural loop is that loop's exit condition: a sink, never
// part of the control label.

/** Locals assigned anywhere inside `expr`, and the number of reads of each inside it. */
function scan(expr: Expr): { sets: Set<number>; gets: Map<number, number> } {
  const sets = new Set<number>();
  const gets = new Map<number, number>();
  const visit = (e: Expr) => {
    const id = idOf(e);
    if (id === Id.LocalSet) sets.add(LocalSet.getIndex(e));
    if (id === Id.LocalGet) gets.set(LocalGet.getIndex(e), (gets.get(LocalGet.getIndex(e)) ?? 0) + 1);
    for (const slot of childSlots(e)) visit(slot.expr);
  };
  visit(expr);
  return { sets, gets };
}

function countGets(c: Ctx, body: Expr): void {
  c.getCounts = scan(body).gets;
}

function joinInto(c: Ctx, locals: number[], label: () => Expr): Expr[] {
  const { module } = c;
  const i32 = binaryen.i32;
  return locals.map((x) => {
    const s = shadowOf(c, x);
    return module.local.set(s, module.i32.or(module.local.get(s, i32), label()));
  });
}

/** The branch's label-holding local (allocated on first use). */
function branchLabelLocal(c: Ctx, b: BranchPlan): number {
  let local = c.branchLabels.get(b.expr);
  if (local === undefined) {
    local = addVar(c.func, binaryen.i32);
    c.branchLabels.set(b.expr, local);
  }
  return local;
}

/** Code at the start of CFG node `node`: branches whose control dependence ends here merge and stop controlling. */
function nodeStart(c: Ctx, node: number | undefined): Expr[] {
  if (node === undefined || !c.implicitFlow) return [];
  const ending = c.plan.endingAt.get(node);
  if (!ending) return [];
  const { module } = c;
  const i32 = binaryen.i32;
  const out: Expr[] = [];
  for (const b of ending) {
    const l = branchLabelLocal(c, b);
    if (node === c.plan.cfg.exit) {
      if (b.returns && c.exitJoin !== null) out.push(module.local.set(c.exitJoin, module.i32.or(module.local.get(c.exitJoin, i32), module.local.get(l, i32))));
    } else {
      out.push(...joinInto(c, b.joined, () => module.local.get(l, i32)));
    }
  }
  for (const b of ending) out.push(module.local.set(branchLabelLocal(c, b), module.i32.const(0)));
  if (node !== c.plan.cfg.exit && ending.some((b) => b.exits.length === 0)) {
    const label = [module.local.get(c.ctlIn, i32), ...c.plan.controlling(node).map((b) => module.local.get(branchLabelLocal(c, b), i32))]
      .reduce((a, b) => module.i32.or(a, b));
    out.push(module.local.set(c.ctl, label));
  }
  return out;
}

/** A statement followed by the code of the CFG node starting right after it. */
function stmtThen(c: Ctx, s: Expr): Expr[] {
  return [...stmt(c, s), ...nodeStart(c, c.plan.cfg.after.get(s))];
}

/**
 * A conditional branch's shadow code, run before it: record its label as a loop exit condition
 * (of every loop it can leave) or as a branch site, keep it until the post-dominator, and (not
 * an exit) add it to the control label.
 */
function conditional(c: Ctx, s: Expr, kind: TaintBranchSite['kind'], condition: Expr): Expr[] | null {
  const { module } = c;
  const i32 = binaryen.i32;
  const b = c.plan.branches.get(s);
  if (!b || isDead(condition)) return null;
  const cl = addVar(c.func, i32);
  const get = () => module.local.get(cl, i32);
  const out: Expr[] = [module.local.set(cl, orZero(c, operandLabel(c, condition)))];
  if (b.exits.length > 0) for (const k of b.exits) out.push(recordExit(c, k, newExit(c, k), get));
  else out.push(recordBranch(c, newBranchSite(c, kind, s), get));
  if (c.implicitFlow) {
    const l = branchLabelLocal(c, b);
    out.push(module.local.set(l, module.i32.or(module.local.get(l, i32), get())));
    if (b.exits.length === 0) out.push(module.local.set(c.ctl, module.i32.or(module.local.get(c.ctl, i32), module.local.get(l, i32))));
  }
  return out;
}

function newBranchSite(c: Ctx, kind: TaintBranchSite['kind'], s: Expr): number {
  const sink = c.sinkCursor.value;
  c.sinkCursor.value += SITE_SINK_BYTES;
  const k = c.plan.loopOf(s);
  c.layout.branches.push({
    id: `B${c.layout.branches.length}`, function: c.fn.site.name, loop: k >= 0 ? c.fn.site.loops[k]! : null, kind, sink,
    location: branchLocation(c.fn, s),
  });
  const local = addVar(c.func, binaryen.i64);
  c.siteLocals.push({ local, sink });
  return local;
}

const branchOrdinals = new WeakMap<FunctionAnalysis, Map<Expr, number>>();

/** Flattening keeps the branch expressions themselves, so the site table's binary-order list finds them. */
function branchLocation(fn: FunctionAnalysis, branch: Expr): SourceLocation | null {
  if (!fn.branchLocations) return null;
  let ordinals = branchOrdinals.get(fn);
  if (!ordinals) branchOrdinals.set(fn, ordinals = new Map(fn.branchExprs.map((e, k) => [e, k])));
  const k = ordinals.get(branch);
  return k === undefined ? null : fn.branchLocations[k] ?? null;
}

function recordBranch(c: Ctx, local: number, label: () => Expr): Expr {
  const { module } = c;
  const i64 = binaryen.i64;
  return module.local.set(local, module.i64.or(module.local.get(local, i64), module.i64.or(module.i64.extend_u(label()), i64Const(module, 1n << 32n))));
}

/** A new exit condition of loop k: its ordinal within the loop (from 0). */
function newExit(c: Ctx, k: number): number {
  return c.loopLocals[k]!.site.exitConditions++;
}

/** Joins `label` into exit condition `exitIndex` of loop k and into the loop's exit label. */
function recordExit(c: Ctx, k: number, exitIndex: number, label: () => Expr): Expr {
  const { module } = c;
  const i32 = binaryen.i32;
  const locals = c.loopLocals[k]!;
  return module.block(null, [
    c.sinks.recordExit(k, exitIndex, label()),
    module.local.set(locals.exit, module.i32.or(module.local.get(locals.exit, i32), label())),
  ], binaryen.none);
}

/** Before a branch to loop k's header: values carried into the next iteration take the loop's exit labels. */
function backEdge(c: Ctx, k: number): Expr[] {
  if (!c.implicitFlow) return [];
  const { module } = c;
  const i32 = binaryen.i32;
  const carried = c.plan.carried(k);
  if (carried.length === 0) return [];
  const locals = c.loopLocals[k]!;
  return joinInto(c, carried, () => module.local.get(locals.exit, i32));
}

/** Back-edge code for every loop header among a branch's targets. */
function backEdges(c: Ctx, s: Expr): Expr[] {
  const out: Expr[] = [];
  for (const t of c.plan.cfg.targets.get(s) ?? []) {
    const start = c.plan.cfg.nodes[t]!.start;
    if (start.kind === 'header') out.push(...backEdge(c, c.plan.cfg.loopOfExpr.get(start.loop)!));
  }
  return out;
}

function blockStmt(c: Ctx, s: Expr): Expr[] {
  const { module } = c;
  const name = Block.getName(s);
  const children: Expr[] = [];
  const count = Block.getNumChildren(s);
  for (let i = 0; i < count; i++) children.push(...stmtThen(c, Block.getChildAt(s, i)));
  const type = typeOf(s) === binaryen.unreachable ? binaryen.none : typeOf(s);
  return [module.block(name, children, type === binaryen.none ? binaryen.none : binaryen.auto)];
}

function loopStmt(c: Ctx, s: Expr): Expr[] {
  const { module } = c;
  const i64 = binaryen.i64;
  const k = c.loopIndex++;
  const siteId = c.fn.site.loops[k];
  if (siteId === undefined) throw new Error(`internal: taint pass found more loops in ${c.fn.site.name} than the site table`);
  const site: TaintLoopSite = { id: siteId, function: c.fn.site.name, record: 0, exitLabels: 0, exitConditions: 0 };
  c.layout.loops.push(site);
  const locals = { exit: addVar(c.func, binaryen.i32), headers: addVar(c.func, i64), entries: addVar(c.func, i64), site, carried: null as number[] | null, expr: s };
  c.loopLocals[k] = locals;
  c.sinks.addLoop(k, site, locals.headers, locals.entries);
  const name = Loop.getName(s);
  const header: Expr[] = [
    module.local.set(locals.headers, module.i64.add(module.local.get(locals.headers, i64), i64Const(module, 1))),
    ...nodeStart(c, c.plan.cfg.nodeOf.get(Loop.getBody(s))),
  ];
  const body = stmtThen(c, Loop.getBody(s));
  const type = typeOf(s);
  const rebuilt = module.loop(name, module.block(null, [...header, ...body], type === binaryen.unreachable ? binaryen.none : type));
  // Entries, with header runs, give source-level iterations (a top-tested loop runs its header once more per entry).
  const entered = module.local.set(locals.entries, module.i64.add(module.local.get(locals.entries, i64), i64Const(module, 1)));
  return [entered, rebuilt];
}

function ifStmt(c: Ctx, s: Expr): Expr[] {
  const { module } = c;
  const condition = If.getCondition(s);
  const pre = conditional(c, s, 'if', condition) ?? [];
  const newArms: Array<Expr | null> = [];
  for (const arm of [If.getIfTrue(s), If.getIfFalse(s)]) {
    if (!arm) { newArms.push(null); continue; }
    const body = [...nodeStart(c, c.plan.cfg.nodeOf.get(arm)), ...stmtThen(c, arm)];
    newArms.push(module.block(null, body, binaryen.none));
  }
  return [...pre, module.if(condition, newArms[0]!, newArms[1] ?? undefined)];
}

function breakStmt(c: Ctx, s: Expr): Expr[] {
  const condition = Break.getCondition(s);
  if (!condition) return [...backEdges(c, s), s];
  const pre = conditional(c, s, 'br_if', condition);
  if (pre === null) return [s];
  return [...pre, ...backEdges(c, s), s];
}

function switchStmt(c: Ctx, s: Expr): Expr[] {
  const pre = conditional(c, s, 'br_table', Switch.getCondition(s));
  if (pre === null) return [s];
  return [...pre, ...backEdges(c, s), s];
}

function returnStmt(c: Ctx, s: Expr): Expr[] {
  const { module } = c;
  const value = (binaryen as unknown as { Return: { getValue(e: Expr): Expr } }).Return.getValue(s);
  const out: Expr[] = [];
  if (value && c.rv !== null) {
    if (isDead(value)) return [s];
    out.push(module.local.set(c.rv, value));
    out.push(module.local.set(c.rl!, orZero(c, operandLabel(c, value))));
  }
  out.push(module.br(EXIT_LABEL));
  return out;
}
