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
// in reserved memory (loop → call → function → loop; instrument/context-tree.ts).
import binaryen from 'binaryen';
import {
  Func,
  Id,
  Loop,
  If,
  addVar,
  childSlots,
  idOf,
  isCountedInstruction,
  labelOf,
  branchTargets,
  typeOf,
  walkPostOrder,
  Call,
  i64Const,
  setConstI64,
  type Expr,
  type ChildSlot,
} from '../ir.js';
import type { FunctionAnalysis, ModuleAnalysis } from '../sites.js';
import { MEMORY_GROW_FUNCTION } from '../memory-layout.js';
import { CONTEXT_OVERFLOW_GLOBALS } from '../reserved-names.js';
import { ContextTree, treeRootBytes } from '../context-tree.js';
import { LOOP_PROFILE_NODE, LOOP_PROFILE_RECORD, align8 } from '../layouts.js';
import { buildCfg } from '../cfg.js';
import type { InstrumentationLocals } from '../program-expressions.js';
import type { PassDescriptor } from '../pass-contract.js';
import { directCallLeaves } from '../direct-leaves.js';
import { inductionCandidates, tripsSince, type Induction } from './loops-induction.js';
import { LeafCallCounter, type LeafSiteRecord, type LeafSiteRegion } from './loops-leaf-calls.js';

const TREE_NAMES = {
  ctx: 'taintlens$ctx',
  site: 'taintlens$site',
  next: 'taintlens$next',
  overflow: CONTEXT_OVERFLOW_GLOBALS[0]!,
  enter: 'taintlens$enter',
};
const ENTER = TREE_NAMES.enter;
/** Expression ids that catch exceptions (absent from older Binaryen builds: undefined is filtered). */
const CATCHING = new Set(
  [
    (binaryen as unknown as Record<string, unknown>).TryId,
    (binaryen as unknown as Record<string, unknown>).TryTableId,
  ].filter((id): id is number => typeof id === 'number'),
);
const EXIT_LABEL = 'taintlens$exit';

export interface LoopProfileLayout {
  /** Address of the root node; function nodes follow in allocation order. */
  base: number;
  bytes: number;
  rootBytes: number;
  /** Per defined function, in site-table order. */
  functions: Array<{
    name: string;
    nodeBytes: number;
    entryInstructions: number;
    loopHeaderInstructions: number[];
    /** Calls of direct-call leaves counted in this function's node (loops-leaf-calls.ts); absent when none. */
    leafSites?: LeafSiteRecord[];
  }>;
  exports: { next: string; overflow: string };
}

/** Where a node's leaf-call count slots (i64 each) start: after its child-slot lists. */
function leafCountsOffset(loops: number, calls: number): number {
  return align8(LOOP_PROFILE_NODE.loops + LOOP_PROFILE_RECORD.size * loops + 4 * calls);
}

export function nodeBytes(loops: number, calls: number, leafSites = 0): number {
  return leafCountsOffset(loops, calls) + 8 * leafSites;
}

/** The root's child slots are indexed by 1-based function number (0 marks the root itself). */
export function rootBytes(functions: number): number {
  return treeRootBytes(LOOP_PROFILE_NODE.loops, functions);
}

const ownFunctions = new Set([ENTER, MEMORY_GROW_FUNCTION]);

export const loopsPass: PassDescriptor<LoopProfileLayout> = {
  name: 'loops',
  describe: 'loop profile: entries, iterations and instructions per loop and calling context',
  requires: ['site-analysis', 'reserved-memory'],
  provides: ['instrumentation-locals'],
  order: {},
  reserves: ['loops'],
  siteRecord:
    'LoopProfileLayout: the calling-context tree (base, size, root) and per function its node size and the instructions of its entry and loop-header regions',
  regions: (options) => [{ name: 'loops', bytes: options.contextBytes ?? 16 << 20 }],
  apply: ({ module, analysis, layout, instrumentationLocals }) =>
    applyLoopProfiler(module, analysis, layout.regions.loops!, instrumentationLocals),
};

/** `ownLocals` (when given) receives, per function, the counter and node locals this pass adds: later passes leave them alone. */
export function applyLoopProfiler(
  module: binaryen.Module,
  analysis: ModuleAnalysis,
  region: { base: number; bytes: number },
  ownLocals?: InstrumentationLocals,
): LoopProfileLayout {
  const tree = new ContextTree(module, TREE_NAMES, region, LOOP_PROFILE_NODE.loops, analysis.functions.length);
  const definedIndex = new Map(analysis.functions.map((f) => [Func.getName(f.func), f.site.index]));
  const leaves = directCallLeaves(module, analysis.functions, ownFunctions);
  const functions = analysis.functions.map((fn) => {
    if (ownFunctions.has(Func.getName(fn.func)))
      return { name: fn.site.name, nodeBytes: 0, entryInstructions: 0, loopHeaderInstructions: [] };
    const leafInstructions = leaves.get(Func.getName(fn.func));
    if (leafInstructions !== undefined) {
      // Its callers count its calls (below); every call runs its `leafInstructions` entry instructions.
      ownLocals?.set(fn.func, new Set());
      return {
        name: fn.site.name,
        nodeBytes: nodeBytes(0, 0),
        entryInstructions: leafInstructions,
        loopHeaderInstructions: [],
      };
    }
    const counters = new Set<number>();
    const result = instrumentFunction(module, tree, fn, definedIndex, leaves, counters);
    ownLocals?.set(fn.func, counters);
    return result;
  });
  return { ...tree.layout, functions };
}

interface Region {
  count: number;
  /** The local its increment adds to (null for the entry and header regions). */
  accumulator: number | null;
  /** `local += k` at the region's start, with `constant` holding k; null when a counter derives k. */
  increment: Expr | null;
  constant: Expr | null;
}

/** `counters` receives the locals that hold only counts and node addresses (not the temporaries, which carry program values). */
function instrumentFunction(
  module: binaryen.Module,
  tree: ContextTree,
  fn: FunctionAnalysis,
  definedIndex: Map<string, number>,
  leaves: Map<string, number>,
  counters: Set<number>,
) {
  const func = fn.func;
  const body = Func.getBody(func);
  const loopCount = fn.loopExprs.length;
  const entryRegion: Region = { count: 0, accumulator: null, increment: null, constant: null };
  const headerRegions: Region[] = fn.loopExprs.map(() => ({
    count: 0,
    accumulator: null,
    increment: null,
    constant: null,
  }));
  if (!body)
    return {
      name: fn.site.name,
      nodeBytes: nodeBytes(loopCount, fn.callExprs.length),
      entryInstructions: 0,
      loopHeaderInstructions: [],
    };

  const i64 = binaryen.i64;
  // Instructions go to the innermost natural loop where their region starts (cfg.ts): code a
  // compiler left inside a `loop` construct after the loop's exit is not the loop's.
  const cfg = buildCfg(body);
  const naturalLoopAt = (node: number | undefined, fallback: number) =>
    node === undefined ? fallback : cfg.innermost[node]!;
  const fnAcc = addVar(func, i64);
  const loopLocals = fn.loopExprs.map(() => ({
    entries: addVar(func, i64),
    headers: addVar(func, i64),
    acc: addVar(func, i64),
  }));
  const parentLocal = addVar(func, binaryen.i32);
  const nodeLocal = addVar(func, binaryen.i32);
  for (const local of [fnAcc, ...loopLocals.flatMap((l) => [l.entries, l.headers, l.acc]), parentLocal, nodeLocal])
    counters.add(local);
  const loopIndex = new Map(fn.loopExprs.map((e, i) => [e, i]));
  const callIndex = new Map(fn.callExprs.map((e, i) => [e, i]));
  const temps = new Map<number, number>();
  const tempOf = (type: number) => {
    let local = temps.get(type);
    if (local === undefined) temps.set(type, (local = addVar(func, type)));
    return local;
  };
  const siteOffsetOf = (call: Expr) =>
    LOOP_PROFILE_NODE.loops + LOOP_PROFILE_RECORD.size * loopCount + 4 * callIndex.get(call)!;
  const bump = (local: number, by: Expr) => module.local.set(local, module.i64.add(module.local.get(local, i64), by));
  const newCountedRegion = (loop: number): Region => {
    const accumulator = loop >= 0 ? loopLocals[loop]!.acc : fnAcc;
    const constant = i64Const(module, 0);
    return { count: 0, accumulator, increment: bump(accumulator, constant), constant };
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
          slot.replace(
            module.block(null, [module.local.set(temp, expr), region.increment!, module.local.get(temp, type)], type),
          );
        }
      },
    });
    return region;
  };

  const leafCalls = new LeafCallCounter(
    module,
    tree,
    func,
    nodeLocal,
    nodeBytes(loopCount, fn.callExprs.length),
    nodeBytes(0, 0),
    counters,
    tempOf,
  );
  /** The loop whose header region has run nothing yet that creates a node (its leaf sites can be checked at loop entry). */
  let pristineHeader: number | null = null;
  /** Induction candidates (loops-induction.ts) by their step's `local.set`, with their loop; `stepsInHeader` marks those found in its header region. */
  const inductionSets = new Map<Expr, { loop: number; induction: Induction }>();
  const stepsInHeader = new Set<Induction>();
  const leafRegion = (loop: number): LeafSiteRegion => {
    if (current === entryRegion) return { kind: 'entry' };
    if (loop >= 0 && current === headerRegions[loop]) return { kind: 'header', loop, hoisted: pristineHeader === loop };
    return { kind: 'counted' };
  };
  let current: Region | null = entryRegion;
  const dead = (expr: Expr) => typeOf(expr) === binaryen.unreachable;
  /** Regions begun right after a `br_if` of a loop's header region, with that loop and branch. */
  const afterHeaderExit = new Map<Region, { loop: number; branch: Expr }>();
  /** Per loop, the instructions of its body region counted as headers − entries (exitDerivedBody). */
  const derivedBody = new Map<Region, number>();
  /** A `try` could catch a throw from inside a loop and leave it by a path no branch shows. */
  let catches = false;
  walkPostOrder(body, (expr) => {
    if (CATCHING.has(idOf(expr))) catches = true;
  });

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
      pristineHeader = k;
      let body = Loop.getBody(expr);
      const inductions = inductionCandidates(body);
      for (const induction of inductions) inductionSets.set(induction.set, { loop: k, induction });
      merge(walk({ expr: body, replace: (c) => (body = c) }, body, k));
      pristineHeader = null;
      const label = Loop.getName(expr);
      if (label) escapes.delete(label);
      const derived = catches ? null : exitDerivedBody(afterHeaderExit, k, body, escapes, dead(expr));
      if (derived) derivedBody.set(derived, k);
      // Left only by falling off its end: an induction stepped once per header gives the header count at exit.
      const induction =
        escapes.size === 0 && typeOf(expr) === binaryen.none ? inductions.find((c) => stepsInHeader.has(c)) : undefined;
      const prelude = [bump(locals.entries, i64Const(module, 1)), ...leafCalls.hoistedChecks(k)];
      let wrapped: Expr;
      if (induction) {
        const start = addVar(func, binaryen.i32);
        counters.add(start);
        Loop.setBody(expr, body);
        wrapped = module.block(
          null,
          [
            ...prelude,
            module.local.set(start, module.local.get(induction.local, binaryen.i32)),
            expr,
            bump(locals.headers, tripsSince(module, induction, start)),
          ],
          binaryen.none,
        );
      } else {
        Loop.setBody(expr, module.block(null, [bump(locals.headers, i64Const(module, 1)), body], binaryen.auto));
        wrapped = module.block(null, [...prelude, expr], binaryen.auto);
      }
      slot.replace(wrapped);
      current = dead(expr) ? null : escapes.size === 0 ? entry : startAfter(slot, wrapped, loop, expr);
      return escapes;
    }
    if (id === Id.If) {
      const conditionSlot: ChildSlot = { expr: If.getCondition(expr), replace: (c) => If.setCondition(expr, c) };
      merge(walk(conditionSlot, conditionSlot.expr, loop));
      count();
      pristineHeader = null;
      const entry = current;
      for (const [get, set] of [
        [If.getIfTrue, If.setIfTrue],
        [If.getIfFalse, If.setIfFalse],
      ] as const) {
        let arm = get(expr);
        if (!arm) continue;
        const region = entry ? newCountedRegion(naturalLoopAt(cfg.nodeOf.get(arm), loop)) : null;
        current = region;
        merge(walk({ expr: arm, replace: (c) => (arm = c) }, arm, loop));
        set(expr, arm);
        if (region) {
          regions.push({
            region,
            place: () => set(expr, module.block(null, [region.increment!, get(expr)], binaryen.auto)),
          });
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
    const stepped = id === Id.LocalSet ? inductionSets.get(expr) : undefined;
    if (stepped && current === headerRegions[stepped.loop]) stepsInHeader.add(stepped.induction);
    for (const target of branchTargets(expr)) escapes.add(target);
    if (id === Id.Return) {
      escapes.add('');
      const value = childSlots(expr)[0]?.expr;
      slot.replace(module.br(EXIT_LABEL, 0, value));
    }
    if (id === Id.Call && leaves.has(Call.getTarget(expr)) && !dead(expr)) {
      const region = leafRegion(loop);
      if (!(region.kind === 'header' && region.hoisted)) pristineHeader = null;
      leafCalls.countCall(slot, expr, siteOffsetOf(expr), definedIndex.get(Call.getTarget(expr))!, region);
    } else if (
      (id === Id.Call && definedIndex.has(Call.getTarget(expr)) && !ownFunctions.has(Call.getTarget(expr))) ||
      id === Id.CallIndirect
    ) {
      tree.announceBefore(slot, expr, siteOffsetOf(expr), tempOf);
      pristineHeader = null;
    } else if (id === Id.Call || id === Id.CallIndirect) pristineHeader = null;
    if (dead(expr)) current = null;
    else if (id === Id.Break && escapes.size > 0 && current) {
      const header = loop >= 0 && current === headerRegions[loop];
      current = startAfter(slot, expr, loop);
      if (header && current.accumulator === loopLocals[loop]!.acc) afterHeaderExit.set(current, { loop, branch: expr });
    }
    return escapes;
  };

  const resultType = Func.getResults(func);
  let walkedBody = body;
  const rootSlot: ChildSlot = { expr: body, replace: (c) => (walkedBody = c) };
  walk(rootSlot, body, -1);

  /** Accumulators some placed region adds to: the others stay 0 and need no flush. */
  const used = new Set<number>();
  /** Per loop, instructions per run of its derived body region (added at exit as count × (headers − entries)). */
  const derivedPerLoop = new Map<number, number>();
  for (const { region, place } of regions) {
    if (region.count === 0) continue;
    const derivedLoop = derivedBody.get(region);
    if (derivedLoop !== undefined) {
      derivedPerLoop.set(derivedLoop, region.count);
      continue;
    }
    setConstI64(region.constant!, region.count);
    place();
    if (region.accumulator !== null) used.add(region.accumulator);
  }

  const i32 = binaryen.i32;
  const node = () => module.local.get(nodeLocal, i32);
  const addInto = (offset: number, value: Expr) =>
    module.i64.store(offset, 8, node(), module.i64.add(module.i64.load(offset, 8, node()), value));
  const flush: Expr[] = [addInto(LOOP_PROFILE_NODE.calls, i64Const(module, 1))];
  if (used.has(fnAcc)) flush.push(addInto(LOOP_PROFILE_NODE.instructions, module.local.get(fnAcc, i64)));
  loopLocals.forEach((locals, k) => {
    const at = LOOP_PROFILE_NODE.loops + LOOP_PROFILE_RECORD.size * k;
    flush.push(
      addInto(at + LOOP_PROFILE_RECORD.entries, module.local.get(locals.entries, i64)),
      addInto(at + LOOP_PROFILE_RECORD.headers, module.local.get(locals.headers, i64)),
    );
    const bodyRuns = () => module.i64.sub(module.local.get(locals.headers, i64), module.local.get(locals.entries, i64));
    const perBodyRun = derivedPerLoop.get(k);
    const derived = perBodyRun === undefined ? null : module.i64.mul(bodyRuns(), i64Const(module, perBodyRun));
    const counted = used.has(locals.acc) ? module.local.get(locals.acc, i64) : null;
    const instructions = derived && counted ? module.i64.add(counted, derived) : (derived ?? counted);
    if (instructions) flush.push(addInto(at + LOOP_PROFILE_RECORD.instructions, instructions));
  });
  flush.push(
    ...leafCalls.flush(
      (k) => module.local.get(loopLocals[k]!.headers, i64),
      (k) => module.local.get(loopLocals[k]!.entries, i64),
    ),
  );
  flush.push(tree.epilogue(parentLocal));
  const size = nodeBytes(loopCount, fn.callExprs.length, leafCalls.siteCount);
  const prologue = tree.inlinePrologue(parentLocal, nodeLocal, fn.site.index, size);
  const exitBlock = module.block(EXIT_LABEL, [walkedBody], resultType);
  let newBody: Expr;
  if (resultType === binaryen.none) {
    newBody = module.block(null, [...prologue, exitBlock, ...flush], binaryen.none);
  } else {
    const result = tempOf(resultType);
    newBody = module.block(
      null,
      [...prologue, module.local.set(result, exitBlock), ...flush, module.local.get(result, resultType)],
      resultType,
    );
  }
  Func.setBody(func, newBody);
  return {
    name: fn.site.name,
    nodeBytes: size,
    entryInstructions: entryRegion.count,
    loopHeaderInstructions: headerRegions.map((r) => r.count),
    ...(leafCalls.siteCount > 0 ? { leafSites: leafCalls.records } : {}),
  };
}

/**
 * The -O0 loop shape `loop $L { header; br_if $exit; body; br $L }`: the region begun right after
 * the header's `br_if` runs on every header execution but the one that leaves, so it runs
 * headers − entries times per invocation and needs no increment per iteration (one register less
 * in the loop for TurboFan). Holds when that `br_if` is the loop's only way out: the loop never
 * falls off its end, and no other branch in it (nested loops included) leaves it — a `return`
 * escapes as '' and a trap loses the invocation's counts anyway. Returns the region, or null.
 */
function exitDerivedBody(
  afterHeaderExit: Map<Region, { loop: number; branch: Expr }>,
  loop: number,
  body: Expr,
  escapes: Set<string>,
  neverFallsThrough: boolean,
): Region | null {
  if (!neverFallsThrough || escapes.size !== 1) return null;
  const candidate = [...afterHeaderExit].find(([, at]) => at.loop === loop);
  if (!candidate) return null;
  const [exit] = escapes;
  let leaving = 0;
  walkPostOrder(body, (expr) => {
    if (branchTargets(expr).includes(exit!)) leaving++;
  });
  return leaving === 1 && branchTargets(candidate[1].branch).includes(exit!) ? candidate[0] : null;
}
