// Loop profiler (Sato et al.'s loop-structure profiling, exact because Wasm loops are structured).
//
// Per function invocation, locals accumulate for each loop its entries (an increment before the
// `loop`), its header executions (an increment at the top of the body) and the instructions run
// inside it; the function's own instructions go to one more local. Instructions are counted per
// straight-line region: a region starts at function entry, at a loop header, in each `if` arm and
// after an instruction that may branch away (br_if, or a block a branch leaves); one `local += k`
// at the region's start counts all k instructions in it. Header and entry regions need no
// increment at all: their counts are derived from the header and call counters afterwards. A
// region's instructions belong to the innermost natural loop (instrument/cfg.ts) where it starts.
//
// At function exit the locals are added into the invocation's node of a calling-context tree kept
// in reserved memory (loop → call → function → loop). Callers announce the call site in a global;
// the callee finds or creates its node under the caller's node (recursion folds onto the ancestor
// node, as in Ammons-Ball-Larus CCTs). Nothing crosses into JS while the program runs.
import binaryen from 'binaryen';
import {
  Func, Id, Loop, If, addVar, childSlots, idOf, isCountedInstruction, labelOf, branchTargets, typeOf,
  Call, i64Const, setConstI64, type Expr, type ChildSlot,
} from '../ir.js';
import type { FunctionAnalysis, ModuleAnalysis } from '../sites.js';
import { MEMORY_GROW_FUNCTION } from '../memory-layout.js';
import { buildCfg } from '../cfg.js';

export const NODE = { func: 0, target: 4, parent: 8, site: 12, next: 16, calls: 24, instructions: 32, loops: 40 } as const;
export const LOOP_RECORD = { entries: 0, headers: 8, instructions: 16, size: 24 } as const;
export const ALIAS_BYTES = 24;
export const EXTERNAL_SITE = -1;

const CTX = 'taintlens$ctx';
const SITE = 'taintlens$site';
const NEXT = 'taintlens$next';
const OVERFLOW = 'taintlens$overflow';
const ENTER = 'taintlens$enter';
const EXIT_LABEL = 'taintlens$exit';

export interface LoopProfileLayout {
  /** Address of the root node; function nodes follow in allocation order. */
  base: number;
  bytes: number;
  rootBytes: number;
  /** Per defined function, in site-table order. */
  functions: Array<{ name: string; nodeBytes: number; entryInstructions: number; loopHeaderInstructions: number[] }>;
  exports: { next: string; overflow: string };
}

export function nodeBytes(loops: number, calls: number): number {
  return align8(NODE.loops + LOOP_RECORD.size * loops + 4 * calls);
}

/** The root's child slots are indexed by 1-based function number (0 marks the root itself). */
export function rootBytes(functions: number): number {
  return align8(NODE.loops + 4 * (functions + 1));
}

const ownFunctions = new Set([ENTER, MEMORY_GROW_FUNCTION]);

export function applyLoopProfiler(module: binaryen.Module, analysis: ModuleAnalysis, region: { base: number; bytes: number }): LoopProfileLayout {
  const base = region.base;
  const rootSize = rootBytes(analysis.functions.length);
  module.addGlobal(CTX, binaryen.i32, true, module.i32.const(base));
  module.addGlobal(SITE, binaryen.i32, true, module.i32.const(EXTERNAL_SITE));
  module.addGlobal(NEXT, binaryen.i32, true, module.i32.const(base + rootSize));
  module.addGlobal(OVERFLOW, binaryen.i32, true, module.i32.const(0));
  addEnterFunction(module, base, base + region.bytes);
  module.addGlobalExport(NEXT, 'taintlens$next');
  module.addGlobalExport(OVERFLOW, 'taintlens$overflow');
  const definedIndex = new Map(analysis.functions.map((f) => [Func.getName(f.func), f.site.index]));
  const functions = analysis.functions.map((fn) => {
    if (ownFunctions.has(Func.getName(fn.func))) return { name: fn.site.name, nodeBytes: 0, entryInstructions: 0, loopHeaderInstructions: [] };
    return instrumentFunction(module, fn, definedIndex);
  });
  return {
    base, bytes: region.bytes, rootBytes: rootSize, functions,
    exports: { next: 'taintlens$next', overflow: 'taintlens$overflow' },
  };
}

interface Region {
  count: number;
  /** `local += k` at the region's start, with `constant` holding k; null when a counter derives k. */
  increment: Expr | null;
  constant: Expr | null;
}

function instrumentFunction(module: binaryen.Module, fn: FunctionAnalysis, definedIndex: Map<string, number>) {
  const func = fn.func;
  const body = Func.getBody(func);
  const loopCount = fn.loopExprs.length;
  const size = nodeBytes(loopCount, fn.callExprs.length);
  const entryRegion: Region = { count: 0, increment: null, constant: null };
  const headerRegions: Region[] = fn.loopExprs.map(() => ({ count: 0, increment: null, constant: null }));
  if (!body) return { name: fn.site.name, nodeBytes: size, entryInstructions: 0, loopHeaderInstructions: [] };

  const i64 = binaryen.i64;
  // Instructions go to the innermost natural loop where their region starts (cfg.ts): code a
  // compiler left inside a `loop` construct after the loop's exit is not the loop's.
  const cfg = buildCfg(body);
  const naturalLoopAt = (node: number | undefined, fallback: number) => (node === undefined ? fallback : cfg.innermost[node]!);
  const fnAcc = addVar(func, i64);
  const loopLocals = fn.loopExprs.map(() => ({ entries: addVar(func, i64), headers: addVar(func, i64), acc: addVar(func, i64) }));
  const parentLocal = addVar(func, binaryen.i32);
  const nodeLocal = addVar(func, binaryen.i32);
  const loopIndex = new Map(fn.loopExprs.map((e, i) => [e, i]));
  const callIndex = new Map(fn.callExprs.map((e, i) => [e, i]));
  const temps = new Map<number, number>();
  const tempOf = (type: number) => {
    let local = temps.get(type);
    if (local === undefined) temps.set(type, (local = addVar(func, type)));
    return local;
  };
  const bump = (local: number, by: Expr) =>
    module.local.set(local, module.i64.add(module.local.get(local, i64), by));
  const newCountedRegion = (loop: number): Region => {
    const accumulator = loop >= 0 ? loopLocals[loop]!.acc : fnAcc;
    const constant = i64Const(module, 0);
    return { count: 0, increment: bump(accumulator, constant), constant };
  };
  /** Regions with the edit that places their increment, applied once we know they are not empty. */
  const regions: Array<{ region: Region; place: () => void }> = [];
  /** Runs `region`'s increment right after `expr` (now held in `slot`) completes normally. */
  const startAfter = (slot: ChildSlot, expr: Expr, loop: number, original: Expr = expr): Region => {
    const region = newCountedRegion(naturalLoopAt(cfg.after.get(original), loop));
    regions.push({
      region,
      place: () => {
        const type = typeOf(expr);
        if (type === binaryen.none) slot.replace(module.block(null, [expr, region.increment!], binaryen.none));
        else {
          const temp = tempOf(type);
          slot.replace(module.block(null, [module.local.set(temp, expr), region.increment!, module.local.get(temp, type)], type));
        }
      },
    });
    return region;
  };

  let current: Region | null = entryRegion;
  const dead = (expr: Expr) => typeOf(expr) === binaryen.unreachable;

  /** Instruments `expr` (held in `slot`); returns the labels (and '' for return) control may escape to. */
  const walk = (slot: ChildSlot, expr: Expr, loop: number): Set<string> => {
    const id = idOf(expr);
    const escapes = new Set<string>();
    const merge = (inner: Set<string>) => inner.forEach((label) => escapes.add(label));
    const count = () => {
      if (current && isCountedInstruction(expr)) current.count++;
    };
    if (id === Id.Loop) {
      count();
      const k = loopIndex.get(expr)!;
      const entry = current;
      const locals = loopLocals[k]!;
      current = headerRegions[k]!;
      let body = Loop.getBody(expr);
      merge(walk({ expr: body, replace: (c) => (body = c) }, body, k));
      const label = Loop.getName(expr);
      if (label) escapes.delete(label);
      Loop.setBody(expr, module.block(null, [bump(locals.headers, i64Const(module, 1)), body], binaryen.auto));
      const wrapped = module.block(null, [bump(locals.entries, i64Const(module, 1)), expr], binaryen.auto);
      slot.replace(wrapped);
      current = dead(expr) ? null : escapes.size === 0 ? entry : startAfter(slot, wrapped, loop, expr);
      return escapes;
    }
    if (id === Id.If) {
      const conditionSlot: ChildSlot = { expr: If.getCondition(expr), replace: (c) => If.setCondition(expr, c) };
      merge(walk(conditionSlot, conditionSlot.expr, loop));
      count();
      const entry = current;
      for (const [get, set] of [[If.getIfTrue, If.setIfTrue], [If.getIfFalse, If.setIfFalse]] as const) {
        let arm = get(expr);
        if (!arm) continue;
        const region = entry ? newCountedRegion(naturalLoopAt(cfg.nodeOf.get(arm), loop)) : null;
        current = region;
        merge(walk({ expr: arm, replace: (c) => (arm = c) }, arm, loop));
        set(expr, arm);
        if (region) {
          regions.push({ region, place: () => set(expr, module.block(null, [region.increment!, get(expr)], binaryen.auto)) });
        }
      }
      current = dead(expr) ? null : escapes.size === 0 ? entry : entry ? startAfter(slot, expr, loop) : null;
      return escapes;
    }
    if (id === Id.Block) {
      const entry = current;
      for (const child of childSlots(expr)) merge(walk(child, child.expr, loop));
      const label = labelOf(expr);
      if (label) escapes.delete(label);
      current = dead(expr) ? null : escapes.size === 0 ? entry : entry ? startAfter(slot, expr, loop) : null;
      return escapes;
    }
    for (const child of childSlots(expr)) merge(walk(child, child.expr, loop));
    count();
    for (const target of branchTargets(expr)) escapes.add(target);
    if (id === Id.Return) {
      escapes.add('');
      const value = childSlots(expr)[0]?.expr ?? null;
      slot.replace(module.br(EXIT_LABEL, 0, value));
    }
    if ((id === Id.Call && definedIndex.has(Call.getTarget(expr)) && !ownFunctions.has(Call.getTarget(expr))) || id === Id.CallIndirect) {
      announceCallSite(module, slot, expr, NODE.loops + LOOP_RECORD.size * loopCount + 4 * callIndex.get(expr)!, tempOf);
    }
    if (dead(expr)) current = null;
    else if (id === Id.Break && escapes.size > 0 && current) current = startAfter(slot, expr, loop);
    return escapes;
  };

  const resultType = Func.getResults(func);
  let walkedBody = body;
  const rootSlot: ChildSlot = { expr: body, replace: (c) => (walkedBody = c) };
  walk(rootSlot, body, -1);

  for (const { region, place } of regions) {
    if (region.count === 0) continue;
    setConstI64(region.constant!, region.count);
    place();
  }

  const i32 = binaryen.i32;
  const node = () => module.local.get(nodeLocal, i32);
  const addInto = (offset: number, value: Expr) =>
    module.i64.store(offset, 8, node(), module.i64.add(module.i64.load(offset, 8, node()), value));
  const flush: Expr[] = [
    addInto(NODE.calls, i64Const(module, 1)),
    addInto(NODE.instructions, module.local.get(fnAcc, i64)),
  ];
  loopLocals.forEach((locals, k) => {
    const at = NODE.loops + LOOP_RECORD.size * k;
    flush.push(
      addInto(at + LOOP_RECORD.entries, module.local.get(locals.entries, i64)),
      addInto(at + LOOP_RECORD.headers, module.local.get(locals.headers, i64)),
      addInto(at + LOOP_RECORD.instructions, module.local.get(locals.acc, i64)),
    );
  });
  flush.push(module.global.set(CTX, module.local.get(parentLocal, i32)));
  const prologue = [
    module.local.set(parentLocal, module.global.get(CTX, i32)),
    module.local.set(nodeLocal, module.call(ENTER, [
      module.local.get(parentLocal, i32), module.global.get(SITE, i32), module.i32.const(fn.site.index + 1), module.i32.const(size),
    ], i32)),
    module.global.set(SITE, module.i32.const(EXTERNAL_SITE)),
    module.global.set(CTX, node()),
  ];
  const exitBlock = module.block(EXIT_LABEL, [walkedBody], resultType);
  let newBody: Expr;
  if (resultType === binaryen.none) {
    newBody = module.block(null, [...prologue, exitBlock, ...flush], binaryen.none);
  } else {
    const result = tempOf(resultType);
    newBody = module.block(null, [...prologue, module.local.set(result, exitBlock), ...flush, module.local.get(result, resultType)], resultType);
  }
  Func.setBody(func, newBody);
  return {
    name: fn.site.name,
    nodeBytes: size,
    entryInstructions: entryRegion.count,
    loopHeaderInstructions: headerRegions.map((r) => r.count),
  };
}

/** Sets the call-site global after the operands are evaluated, right before the call. */
function announceCallSite(module: binaryen.Module, slot: ChildSlot, call: Expr, siteOffset: number, tempOf: (t: number) => number): void {
  const announce = module.global.set(SITE, module.i32.const(siteOffset));
  const operands = childSlots(call);
  const last = operands.at(-1);
  if (!last) {
    slot.replace(module.block(null, [announce, call], binaryen.auto));
    return;
  }
  const type = typeOf(last.expr);
  if (type === binaryen.unreachable) return;
  const temp = tempOf(type);
  last.replace(module.block(null, [module.local.set(temp, last.expr), announce, module.local.get(temp, type)], type));
}

/** Finds or creates the context node of a function called from a call site of the current node. */
function addEnterFunction(module: binaryen.Module, base: number, limit: number): void {
  const i32 = binaryen.i32;
  const [PARENT, SITE_ARG, FID, SIZE, SLOT, N, ANC, REC, RECSIZE] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const get = (i: number) => module.local.get(i, i32);
  const set = (i: number, v: Expr) => module.local.set(i, v);
  const load = (offset: number, ptr: Expr) => module.i32.load(offset, 4, ptr);
  const store = (offset: number, ptr: Expr, value: Expr) => module.i32.store(offset, 4, ptr, value);
  const body = module.block(null, [
    module.if(
      module.i32.eq(get(SITE_ARG), module.i32.const(EXTERNAL_SITE)),
      module.block(null, [
        set(PARENT, module.i32.const(base)),
        set(SLOT, module.i32.add(module.i32.const(base + NODE.loops), module.i32.shl(get(FID), module.i32.const(2)))),
      ]),
      set(SLOT, module.i32.add(get(PARENT), get(SITE_ARG))),
    ),
    set(N, load(0, get(SLOT))),
    module.block('found', [
      module.loop('scan', module.block(null, [
        module.br('found', module.i32.eqz(get(N))),
        module.if(module.i32.eq(load(NODE.func, get(N)), get(FID)), module.return(load(NODE.target, get(N)))),
        set(N, load(NODE.next, get(N))),
        module.br('scan'),
      ])),
    ]),
    set(ANC, get(PARENT)),
    module.block('ancestors', [
      module.loop('up', module.block(null, [
        module.br('ancestors', module.i32.eqz(get(ANC))),
        module.br('ancestors', module.i32.eq(load(NODE.func, get(ANC)), get(FID))),
        set(ANC, load(NODE.parent, get(ANC))),
        module.br('up'),
      ])),
    ]),
    set(REC, module.global.get(NEXT, i32)),
    set(RECSIZE, module.select(get(ANC), module.i32.const(ALIAS_BYTES), get(SIZE))),
    module.if(
      module.i32.gt_u(module.i32.add(get(REC), get(RECSIZE)), module.i32.const(limit)),
      module.block(null, [module.global.set(OVERFLOW, module.i32.const(1)), module.unreachable()]),
    ),
    module.global.set(NEXT, module.i32.add(get(REC), get(RECSIZE))),
    store(NODE.func, get(REC), get(FID)),
    store(NODE.target, get(REC), module.select(get(ANC), get(ANC), get(REC))),
    store(NODE.parent, get(REC), get(PARENT)),
    store(NODE.site, get(REC), get(SITE_ARG)),
    store(NODE.next, get(REC), load(0, get(SLOT))),
    store(0, get(SLOT), get(REC)),
    load(NODE.target, get(REC)),
  ], i32);
  module.addFunction(ENTER, binaryen.createType([i32, i32, i32, i32]), i32, [i32, i32, i32, i32, i32], body);
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

