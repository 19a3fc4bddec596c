// Sampled counters (mode `sample`, issue #14): a countdown of executed instructions kept in a Wasm
// global. Every straight-line region of the loop profiler (instrument/sample-walk.ts) subtracts its
// instruction count at its start; when the countdown goes below zero the rare sample path runs, in
// Wasm: the check finds the calling-context node (instrument/context-tree.ts) and the addresses the
// region's work is stored to (evaluated from the static relations, instrument/blame-relations.ts)
// and calls a shared function out of line (passes/sample-record.ts) that appends a record — region,
// node, the allocation log's length, the shadow stack pointer, the addresses — and rearms the
// countdown with a deterministic jittered period (an LCG), so the same run gives the same samples
// and loop lengths do not alias with the period. Allocations (dlmalloc's malloc/calloc/realloc/free,
// AssemblyScript's __new/__renew/__alloc/__realloc/__free, memory.grow outside them) are appended to
// a second log in memory by the allocator's own epilogue. Only a full sample buffer calls into JS
// while the program runs (the host empties it: src/blame/sample-drain.ts).
// Per call (issue 27, docs/blame.md "Measured"): a function with calls keeps a frame of static call
// sites; the node is found only when a sample is taken (passes/sample-context.ts); one without loops
// counts down the global instead of a local; a straight-line leaf shorter than a checked region
// carries no code at all (its callers count its instructions), a longer one is checked at its call
// sites (shortLeaves). A counted innermost loop runs the iterations the countdown covers in an
// unchecked copy, charged at once (passes/sample-trips.ts). A region's check also charges the leaves
// checked at its start and, in a loop whose only way back is a plain `br` after it, the header's
// next run (windowedCheck, prechargeHeaders): they test a flag instead of checking, or, where the
// code allows, the window's statements run in two copies, one without the leaves' checks, picked by
// the region's check (passes/sample-window-versions.ts).
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Call,
  Func,
  LocalSet,
  LocalGet,
  Loop,
  Unary,
  addVar,
  idOf,
  Id,
  walkPostOrder,
  childSlots as childSlotsOf,
  type ChildSlot,
  type Expr,
} from '../ir.js';
import type { ModuleAnalysis } from '../sites.js';
import { ContextTree } from '../context-tree.js';
import {
  ALLOC_RECORD,
  DRAIN_IMPORT,
  MAX_ADDRESSES,
  NODE_HEADER,
  SAMPLE_RECORD,
  align8,
  allocKindNumber,
  type ContextTreeLayout,
} from '../layouts.js';
import { MEMORY_GROW_FUNCTION, PROGRAM_BYTES32_GLOBAL, RESERVED_PREFIX } from '../reserved-names.js';
import { walkFunction, type WalkedFunction } from '../sample-walk.js';
import { FunctionRelations } from '../blame-relations.js';
import type { AddressAst, FunctionFacts } from '../flow-facts.js';
import { FactPacker } from '../packed-facts.js';
import { allocatorOf, type AllocatorKind } from '../allocators.js';
import { directCallLeaves } from '../direct-leaves.js';
import { TRAPPING_TRUNCATIONS } from '../control-plan.js';
import type { PassDescriptor } from '../pass-contract.js';
import {
  TripScratch,
  countedLoopOf,
  entryConstants,
  fastForward,
  staticTrips,
  uncheckedCopy,
  plainCopy,
  wholeRunAtEntry,
  type CountedLoop,
  type StaticTrips,
} from './sample-trips.js';
import { RecordFunctions } from './sample-record.js';
import { versionWindows, type WindowArms, type WindowHeader } from './sample-window-versions.js';
import {
  SITE_STACK_BYTES,
  SITE_STACK_REGION,
  SiteStack,
  callKindOf,
  planFrames,
  type Frame,
} from './sample-context.js';

export const DEFAULT_PERIOD = 49999;
/**
 * Regions shorter than this only count down; the next checked region (every loop header and
 * function entry is one) takes a sample they were due. Branchy code is full of 1–5 instruction
 * regions, and a compare-and-branch each made it 2–2.5× slower; the cost is a sample placed a few
 * instructions late.
 */
export const MIN_CHECKED = 8;

export interface SampleOptions {
  /** Instructions between samples on average (default 49999). */
  period?: number;
  /** Sample records kept (default 131072): room for that many of the longest record, more of shorter ones; later samples are counted, not kept. */
  maxSamples?: number;
  /** Allocation records kept (default 65536). */
  maxAllocations?: number;
  /** Bytes for the calling-context tree (default 4 MiB). */
  treeBytes?: number;
  /** Charge counted innermost loops' checks on entry (passes/sample-trips.ts; default true). Off, every iteration checks: the same samples, more instructions. */
  countedLoops?: boolean;
  /** Let a region's check charge the leaves checked at its start and a loop header's next run (windowedCheck, prechargeHeaders; default true). Off, each checks itself: the same samples, more instructions. */
  chargeAhead?: boolean;
  /** Run a window's statements in two copies behind one flag test, one with its leaves' checks and one without (passes/sample-window-versions.ts; default true). Off, each leaf tests the flag: the same samples. */
  windowCopies?: boolean;
  /** Run a counted loop entered with a countdown that covers all its iterations as an unchanged copy of the original (wholeRunAtEntry; default true). Off, its checked loop fast-forwards from the first iteration: the same samples. */
  wholeRuns?: boolean;
  /** Write a sample repeating the previous record's node, allocations and stack pointer as a short record (passes/sample-record.ts; default true). Off, every record is full: the same samples, more bytes. */
  shortRecords?: boolean;
}

export interface SampleLayout {
  period: number;
  tree: ContextTreeLayout;
  /** Node bytes per defined function, in site-table order. */
  nodeBytes: number[];
  samples: { base: number; bytes: number };
  allocations: { base: number; bytes: number };
  exports: { samples: string; dropped: string; allocations: string; allocationsDropped: string };
  /** Per global region id: function index, function-local region index, recorded store addresses. */
  regions: Array<{ function: number; index: number; recorded: Array<{ ptr: AddressAst; offset: number }> }>;
  /** Per defined function: data-flow facts and regions (instrument/flow-facts.ts). */
  functions: FunctionFacts[];
  /** memory.grow sites: the function that grows. */
  grows: Array<{ function: number }>;
  /** Allocator functions found, by site-table index. */
  allocators: Array<{ function: number; kind: AllocatorKind }>;
  /** The shadow stack: its pointer global and the address it starts at (top of the stack). */
  stack: { global: string; top: number } | null;
  /** Loops (site ids) whose checks are charged on entry when no sample falls due inside (passes/sample-trips.ts); each one's unchecked copy follows it. */
  countedLoops: string[];
  /**
   * Folded leaves' calls (shortLeaves): [region id, the region's instructions, the leaf's site-table
   * index, where its instructions start in the region, how many]. A sample whose record's countdown
   * falls among them was due inside the leaf (src/blame/folded-samples.ts).
   */
  foldedCalls: FoldedCallEntry[];
  /** Those of `countedLoops` with a whole copy right before them (run when the countdown covers the loop on entry, wholeRunAtEntry). */
  wholeLoops: string[];
}

export type FoldedCallEntry = [
  region: number,
  regionInstructions: number,
  leaf: number,
  start: number,
  instructions: number,
];

const NAMES = {
  countdown: 'taintlens$scount',
  seed: 'taintlens$sseed',
  cursor: 'taintlens$scursor',
  dropped: 'taintlens$sdropped',
  allocCursor: 'taintlens$acursor',
  allocDropped: 'taintlens$adropped',
  depth: 'taintlens$adepth',
  log: 'taintlens$alog',
  grow: 'taintlens$sgrow',
  drain: 'taintlens$sdrain',
};

const TREE_NAMES = {
  ctx: 'taintlens$sctx',
  site: 'taintlens$ssite',
  next: 'taintlens$snext',
  overflow: 'taintlens$soverflow',
  enter: 'taintlens$senter',
};
const EXIT_LABEL = 'taintlens$sexit';
const FAST_LABEL = 'taintlens$sfast';

export const samplePass: PassDescriptor<SampleLayout> = {
  name: 'sample',
  describe:
    'sampled counters for variable blame: an in-Wasm instruction countdown records a sample (region, call path, store addresses) every ~N instructions, plus the allocation log',
  requires: ['site-analysis', 'reserved-memory'],
  provides: [],
  order: {},
  reserves: ['sample', 'samples', 'allocations', SITE_STACK_REGION],
  siteRecord:
    'SampleLayout: period, context tree, sample and allocation buffers, per region its recorded store addresses, per function its flow facts (flow-facts.ts), allocators, shadow stack',
  regions: (options) =>
    sampleRegions({ ...(options.contextBytes ? { treeBytes: options.contextBytes } : {}), ...options.sample }),
  apply: ({ module, analysis, layout, options }) =>
    applySampling(module, analysis, layout.regions, layout.programBase, options.sample),
};

export function sampleRegions(options: SampleOptions = {}): Array<{ name: string; bytes: number }> {
  return [
    { name: 'sample', bytes: options.treeBytes ?? 4 << 20 },
    { name: 'samples', bytes: SAMPLE_RECORD.size * (options.maxSamples ?? 1 << 17) },
    { name: 'allocations', bytes: ALLOC_RECORD.size * (options.maxAllocations ?? 1 << 16) },
    { name: SITE_STACK_REGION, bytes: SITE_STACK_BYTES },
  ];
}

export function nodeBytesFor(calls: number): number {
  return align8(NODE_HEADER.bytes + 4 * calls);
}

export function applySampling(
  module: binaryen.Module,
  analysis: ModuleAnalysis,
  regions: Record<string, { base: number; bytes: number }>,
  programBase: number,
  options: SampleOptions = {},
): SampleLayout {
  const period = Math.max(1, Math.floor(options.period ?? DEFAULT_PERIOD));
  const treeRegion = regions.sample!;
  const samples = regions.samples!;
  const allocations = regions.allocations!;
  const tree = new ContextTree(module, TREE_NAMES, treeRegion, NODE_HEADER.bytes, analysis.functions.length);
  const i32 = binaryen.i32;
  const stack = findStackPointer(module);
  const addGlobal = (name: string, value: number, exported = false) => {
    module.addGlobal(name, i32, true, module.i32.const(value));
    if (exported) module.addGlobalExport(name, name);
  };
  addGlobal(NAMES.countdown, period);
  addGlobal(NAMES.seed, 0x2545f491);
  addGlobal(NAMES.cursor, samples.base, true);
  addGlobal(NAMES.dropped, 0, true);
  addGlobal(NAMES.allocCursor, allocations.base, true);
  addGlobal(NAMES.allocDropped, 0, true);
  addGlobal(NAMES.depth, 0);
  const records = new RecordFunctions(module, NAMES, {
    period,
    end: samples.base + samples.bytes,
    stackPointer: stack?.global ?? null,
    shortRecords: options.shortRecords !== false,
  });
  module.addFunctionImport(NAMES.drain, DRAIN_IMPORT.module, DRAIN_IMPORT.name, binaryen.none, binaryen.none);
  addLogFunction(module, allocations.base + allocations.bytes);
  addGrowWrapper(module);

  const definedIndex = new Map(analysis.functions.map((f) => [Func.getName(f.func), f.site.index]));
  const layoutRegions: SampleLayout['regions'] = [];
  const functions: FunctionFacts[] = [];
  const grows: SampleLayout['grows'] = [];
  const allocators: SampleLayout['allocators'] = [];
  const nodeBytes: number[] = [];
  const countedLoops: string[] = [];
  const foldedCalls: FoldedCallEntry[] = [];
  const wholeLoops: string[] = [];
  /** Per charged leaf: its one region and what its sample records. */
  const chargedRegions = new Map<string, ChargedRegion>();
  /** Calls of charged leaves: their checks go in once every leaf's region is known. */
  const chargedCalls: ChargedCall[] = [];
  /** Regions whose charged calls are covered by one comparison at the region's start. */
  const windowList: ChargeWindow[] = [];
  const { folded, charged } = shortLeaves(module, analysis);
  // Calls that need no site and no countdown sync: folded leaves and leaves charged at their call sites.
  const quiet = new Map([...folded, ...charged]);
  const plan = planFrames(analysis, quiet);
  const sites = new SiteStack(module, tree, regions[SITE_STACK_REGION]!, plan);
  const defined = new Set(definedIndex.keys());
  // Once per module: built per function, this map cost yosys (20,000 functions) most of its instrumentation.
  const loopsById = new Map(analysis.table.loops.map((l) => [l.id, l]));
  // Each function's facts and recorded stores are packed once the pass is done with them.
  const packer = new FactPacker(functions, layoutRegions);
  for (const fn of analysis.functions) {
    const size = nodeBytesFor(fn.callExprs.length);
    nodeBytes.push(size);
    const name = Func.getName(fn.func);
    const body = Func.getBody(fn.func);
    const facts: FunctionFacts = {
      index: fn.site.index,
      params: binaryen.expandType(Func.getParams(fn.func)).length,
      localNames: localNames(fn.func),
      facts: [],
      regions: [],
      loopParents: [],
      callees: [],
      grows: [],
      stackLocals: [],
    };
    packer.start(facts);
    if (!body || name.startsWith(RESERVED_PREFIX)) continue;
    const temps = new Map<number, number>();
    const tempOf = (type: number) => {
      let local = temps.get(type);
      if (local === undefined) temps.set(type, (local = addVar(fn.func, type)));
      return local;
    };
    const walked = walkFunction({
      module,
      func: fn.func,
      loopExprs: fn.loopExprs,
      callExprs: fn.callExprs,
      programBase,
      stackPointer: stack?.global ?? null,
      tempOf,
      foldedCallees: folded,
      quietCallees: quiet,
    });
    facts.facts = walked.facts;
    facts.stackLocals = walked.stackLocals;
    facts.loopParents = loopParentsOf(loopsById, fn.site.loops);
    facts.callees = fn.callExprs.map((call) => {
      const target =
        binaryen.getExpressionId(call) === binaryen.CallId
          ? (binaryen.getExpressionInfo(call) as { target?: string })
          : null;
      return target?.target !== undefined ? (definedIndex.get(target.target) ?? null) : null;
    });
    const relations = new FunctionRelations({
      ...facts,
      regions: walked.regions.map((r) => ({ id: 0, loop: r.loop, instructions: r.instructions })),
    });
    const allocator = allocatorOf(fn.site.name, binaryen.expandType(Func.getParams(fn.func)), Func.getResults(fn.func));
    // Only a function that makes calls keeps a frame; a call's node is found when its first sample
    // needs it, and kept in a local (zero at entry) for the call's later samples.
    const framed = plan.framed.has(name);
    let nodeLocal: number | null = null;
    const node = (): Expr => {
      nodeLocal ??= addVar(fn.func, binaryen.i32);
      const known = () => module.local.get(nodeLocal!, binaryen.i32);
      return module.if(
        known(),
        known(),
        module.local.tee(nodeLocal, sites.node(fn.site.index, size, framed), binaryen.i32),
      );
    };
    const checks: Expr[] = [];
    /** Per region, its check charging `extra` more instructions (a window's leaves: ChargeWindow). */
    const regionChecks: Array<(extra: number, flags: number[], arms?: WindowArms) => Expr> = [];
    const countdown = countdownOf(module, fn.func, fn.loopExprs.length > 0);
    let loaded: number | undefined;
    const addressTemp = () => (loaded ??= addVar(fn.func, binaryen.i32));
    for (const region of walked.regions) {
      const id = layoutRegions.length;
      const recorded = relations.recordedStores(region.index, MAX_ADDRESSES);
      layoutRegions.push({ function: fn.site.index, index: region.index, recorded });
      for (const call of region.folded ?? [])
        foldedCalls.push([id, region.instructions, definedIndex.get(call.callee)!, call.start, call.instructions]);
      facts.regions.push({ id, loop: region.loop, instructions: region.instructions });
      const checked = region.header || region.instructions >= MIN_CHECKED;
      const own = () =>
        checked
          ? countdownCheck(
              module,
              id,
              region.instructions,
              recorded,
              programBase,
              countdown,
              addressTemp,
              records,
              node,
            )
          : countdown.set(module.i32.sub(countdown.get(), module.i32.const(region.instructions)));
      checks.push(region.instructions === 0 ? module.nop() : own());
      regionChecks.push((extra, flags, arms) =>
        windowedCheck(module, countdown, region.instructions + extra, own(), flags, arms),
      );
    }
    // A folded leaf keeps its regions (and their facts) but no code: its callers count it. A charged
    // leaf's one region is checked at its call sites.
    if (folded.has(name)) continue;
    if (charged.has(name)) {
      const region = facts.regions[0]!;
      chargedRegions.set(name, {
        id: region.id,
        instructions: region.instructions,
        recorded: layoutRegions[region.id]!.recorded,
        params: facts.params,
        index: fn.site.index,
        size,
      });
      continue;
    }
    // Edits in an order that keeps every recorded slot valid: calls and returns first, regions last.
    const callSlots = new Map<Expr, ChildSlot>();
    /** Per region, the charged calls nothing before them in it changes the countdown for. */
    const windows = new Map<number, ChargedCall[]>();
    const direct = (call: Expr) => binaryen.getExpressionId(call) === binaryen.CallId;
    for (const [call, slot] of walked.callSlots) {
      if (direct(call) && folded.has(Call.getTarget(call))) continue;
      if (direct(call) && charged.has(Call.getTarget(call))) {
        // An empty block before the call, filled with the leaf's check after the loop.
        const at = module.block(null, []);
        slot.replace(module.block(null, [at, call], binaryen.auto));
        const c = fn.callExprs.indexOf(call);
        const entry: ChargedCall = {
          at,
          call,
          site: NODE_HEADER.bytes + 4 * c,
          countdown,
          addressTemp,
          node,
          window: null,
        };
        chargedCalls.push(entry);
        const where = walked.callRegions.get(call);
        if (where?.clean) windows.set(where.region, [...(windows.get(where.region) ?? []), entry]);
        continue;
      }
      const own = direct(call) && Call.getTarget(call).startsWith(RESERVED_PREFIX);
      callSlots.set(call, own || !countdown.local ? slot : syncAroundCall(module, slot, call, countdown, tempOf));
    }
    let slow: number | null = null;
    const windowAt = new Map<number, ChargeWindow>();
    for (const [k, calls] of windows) {
      if (options.chargeAhead === false) continue;
      slow ??= addVar(fn.func, binaryen.i32);
      const window: ChargeWindow = {
        func: fn.func,
        check: module.block(null, []),
        build: regionChecks[k]!,
        slow,
        calls,
        ahead: 0,
        headerClears: false,
      };
      windowAt.set(k, window);
      for (const call of calls) call.window = window;
      checks[k] = window.check;
      windowList.push(window);
    }
    const frame = framed ? sites.frame(fn.func, fn.site.index, size, plan.guarded.has(name)) : null;
    const writes = (call: Expr) => callKindOf(call, defined, quiet) !== 'none';
    fn.callExprs.forEach((call, c) => {
      const slot = callSlots.get(call);
      const kind = callKindOf(call, defined, quiet);
      if (slot && frame && kind !== 'none')
        SiteStack.writeBefore(module, slot, call, frame.siteWrite(kind, NODE_HEADER.bytes + 4 * c), tempOf, writes);
    });
    // Only a frame, a countdown in a local or an allocator's log needs code at exit.
    const exits = frame !== null || countdown.local !== null || allocator !== null;
    if (exits) for (const ret of walked.returns) ret.slot.replace(module.br(EXIT_LABEL, 0, ret.value ?? undefined));
    for (const grow of walked.growCalls) {
      facts.grows.push(grows.length);
      // Rewritten in place (the call keeps its identity): memory.grow(delta) → sgrow(delta, site, node).
      Call.setTarget(grow, NAMES.grow);
      Call.appendOperand(grow, module.i32.const(grows.length));
      Call.appendOperand(grow, node());
      grows.push({ function: fn.site.index });
    }
    // Counted innermost loops: their unchecked copies are taken before any check goes in, their
    // fast-forwards put before their header checks.
    const scratch = new TripScratch(fn.func);
    const fastLoops: Array<{
      loop: Expr;
      counted: CountedLoop;
      copy: Expr;
      perIteration: number;
      exit: string;
      known: StaticTrips | null;
    }> = [];
    const entries =
      fn.loopExprs.length > 0 ? entryConstants(walked.body) : new Map<Expr, { local: number; value: number }>();
    fn.loopExprs.forEach((loop, j) => {
      const counted = countdown.local === null || options.countedLoops === false ? null : countedLoopOf(loop, folded);
      const header = walked.regions.find((r) => r.header && r.loop === j);
      const slot = walked.loopSlots.get(loop);
      if (!counted || !header || !slot) return;
      const copy = uncheckedCopy(module, counted, `${FAST_LABEL}${j}`, scratch.locals.bound);
      const exit = `${FAST_LABEL}exit${j}`;
      const entry = entries.get(loop);
      const known = entry && entry.local === counted.induction.local ? staticTrips(counted, entry.value) : null;
      // Entered with a countdown that covers all of it, the loop runs as the original (wholeRunAtEntry).
      // Not for a loop that makes calls: nothing stays in registers across them anyway, and the
      // third copy cost elements -O2's corner loop 2–3%.
      const whole =
        options.wholeRuns === false || makesCalls(loop)
          ? []
          : [
              wholeRunAtEntry(
                module,
                counted,
                plainCopy(counted, `${FAST_LABEL}whole${j}`, module),
                header.instructions,
                countdown.local!,
                scratch,
                exit,
                known,
              ),
            ];
      if (whole.length > 0) wholeLoops.push(fn.site.loops[j]!);
      slot.replace(module.block(exit, [...whole, loop], binaryen.none));
      fastLoops.push({ loop, counted, copy, perIteration: header.instructions, exit, known });
      countedLoops.push(fn.site.loops[j]!);
    });
    if (options.chargeAhead !== false)
      prechargeHeaders(module, fn.func, fn.loopExprs, walked, checks, regionChecks, {
        skip: new Set([...fastLoops.map((f) => f.loop)]),
        windowAt,
        // Regions with a charged call outside their window (after an unquiet call): its check runs in between.
        busy: new Set(
          [...walked.callRegions]
            .filter(([call, where]) => direct(call) && charged.has(Call.getTarget(call)) && !where.clean)
            .map(([, where]) => where.region),
        ),
      });
    walked.regions.forEach((region, k) => {
      if (k > 0 && region.instructions > 0) region.place(checks[k]!);
    });
    for (const { loop, counted, copy, perIteration, exit, known } of fastLoops) {
      const forward = fastForward(module, counted, copy, perIteration, countdown.local!, scratch, exit, known);
      Loop.setBody(loop, module.block(null, [forward, Loop.getBody(loop)], binaryen.none));
    }
    if (allocator) allocators.push({ function: fn.site.index, kind: allocator.kind });
    finishFunction(module, fn.func, walked.body, checks[0]!, allocator, tempOf, countdown, frame, node, exits);
  }
  packer.finish();
  const windowCharge = ({ calls, ahead }: ChargeWindow) =>
    calls.reduce((sum, c) => sum + chargedRegions.get(Call.getTarget(c.call))!.instructions, 0) + ahead;
  for (const window of windowList) Block.appendChild(window.check, window.build(windowCharge(window), [window.slow]));
  for (const { at, call, site, countdown, addressTemp, node, window } of chargedCalls) {
    const leaf = chargedRegions.get(Call.getTarget(call))!;
    const operands = childSlotsOf(call).map((slot) => slot.expr);
    // Its parameters are the call's operands (pure: evaluated again on the rare path), its other locals 0.
    const local = (k: number): Expr =>
      k < leaf.params && operands[k] ? operandValue(module, operands[k]!) : module.i32.const(0);
    const leafNode = () => sites.child(node(), site, leaf.index, leaf.size);
    const check = countdownCheck(
      module,
      leaf.id,
      leaf.instructions,
      leaf.recorded,
      programBase,
      countdown,
      addressTemp,
      records,
      leafNode,
      local,
    );
    // The window's last call clears its flag for the region's next run.
    const last = window?.calls.at(-1)?.call === call && !window.headerClears;
    const checkNow =
      window && last ? module.block(null, [module.local.set(window.slow, module.i32.const(0)), check]) : check;
    Block.appendChild(at, window ? module.if(module.local.get(window.slow, i32), checkNow) : check);
  }
  if (options.chargeAhead !== false && options.windowCopies !== false) {
    const byFunction = new Map<number, ChargeWindow[]>();
    for (const w of windowList) byFunction.set(w.func, [...(byFunction.get(w.func) ?? []), w]);
    for (const [func, windows] of byFunction)
      versionWindows(
        module,
        Func.getBody(func),
        windows.map((w) => ({
          check: w.check,
          flag: w.slow,
          leaves: w.calls.map((c) => c.at),
          ...(w.header ? { header: w.header } : {}),
          // Once the check leads to the copies, only a header that still tests the flag reads it.
          merged: (arms: WindowArms, headerTests: boolean) =>
            w.build(windowCharge(w), w.headerClears && headerTests ? [w.slow] : [], arms),
        })),
      );
  }
  return {
    period,
    tree: tree.layout,
    nodeBytes,
    samples,
    allocations,
    exports: {
      samples: NAMES.cursor,
      dropped: NAMES.dropped,
      allocations: NAMES.allocCursor,
      allocationsDropped: NAMES.allocDropped,
    },
    regions: layoutRegions,
    functions,
    grows,
    allocators,
    stack,
    countedLoops,
    foldedCalls,
    wholeLoops,
  };
}

/**
 * Straight-line leaves reached by direct calls only. Those shorter than a checked region are
 * folded: like a short region they only count down, and their callers do that (their instructions
 * join the calling region), so neither they nor their calls carry any code; a sample due inside one
 * is taken at the caller's next check, as for any short region. The others are charged at their
 * call sites: a leaf's one region is its entry check, and its caller makes that check right before
 * the call, with the leaf's region, node and store addresses (its parameters are the call's
 * operands) — the same sample at the same point, while the leaf carries no code, its caller
 * announces no call site and keeps its countdown across the call. A leaf is charged only when every
 * call passes operands that can be evaluated again (locals, constants and arithmetic on them).
 */
function shortLeaves(
  module: binaryen.Module,
  analysis: ModuleAnalysis,
): { folded: Map<string, number>; charged: Map<string, number> } {
  const skip = new Set<string>();
  for (const fn of analysis.functions) {
    const name = Func.getName(fn.func);
    const params = binaryen.expandType(Func.getParams(fn.func));
    if (name.startsWith(RESERVED_PREFIX) || allocatorOf(fn.site.name, params, Func.getResults(fn.func))) skip.add(name);
  }
  const folded = directCallLeaves(module, analysis.functions, skip);
  const charged = new Map<string, number>();
  for (const [name, instructions] of folded) {
    if (instructions < MIN_CHECKED) continue;
    folded.delete(name);
    charged.set(name, instructions);
  }
  for (const fn of analysis.functions)
    for (const call of fn.callExprs) {
      if (binaryen.getExpressionId(call) !== binaryen.CallId || !charged.has(Call.getTarget(call))) continue;
      if (!repeatableOperands(call)) charged.delete(Call.getTarget(call));
    }
  return { folded, charged };
}

/**
 * Whether the call's operands compute the same values again before the call, with no effect and
 * no trap: locals, constants, arithmetic, and `local.tee` of a local no operand reads (evaluated
 * again without the tee: operandValue).
 */
function repeatableOperands(call: Expr): boolean {
  const reads = new Set<number>();
  const tees = new Set<number>();
  const pure = (expr: Expr): boolean => {
    const id = binaryen.getExpressionId(expr);
    if (id === binaryen.ConstId) return true;
    if (id === binaryen.LocalGetId) {
      reads.add(LocalGet.getIndex(expr));
      return true;
    }
    if (id === binaryen.LocalSetId) {
      if (!LocalSet.isTee(expr)) return false;
      tees.add(LocalSet.getIndex(expr));
      return pure(LocalSet.getValue(expr));
    }
    if (id !== binaryen.BinaryId && id !== binaryen.UnaryId) return false;
    const op = id === binaryen.BinaryId ? Binary.getOp(expr) : Unary.getOp(expr);
    if (DIVISIONS.has(op) || TRAPPING_TRUNCATIONS.has(op)) return false;
    return childSlotsOf(expr).every((child) => pure(child.expr));
  };
  return childSlotsOf(call).every((operand) => pure(operand.expr)) && ![...tees].some((local) => reads.has(local));
}

/** A fresh copy of a repeatable operand without its tees (the value, not the local's update). */
function operandValue(module: binaryen.Module, expr: Expr): Expr {
  if (binaryen.getExpressionId(expr) === binaryen.LocalSetId) return operandValue(module, LocalSet.getValue(expr));
  const copy = module.copyExpression(expr);
  for (const child of childSlotsOf(copy)) child.replace(operandValue(module, child.expr));
  return copy;
}

/** Division and remainder (they trap on zero); float-to-int truncations are in TRAPPING_TRUNCATIONS. */
const DIVISIONS = new Set<number>([
  binaryen.DivSInt32,
  binaryen.DivUInt32,
  binaryen.RemSInt32,
  binaryen.RemUInt32,
  binaryen.DivSInt64,
  binaryen.DivUInt64,
  binaryen.RemSInt64,
  binaryen.RemUInt64,
]);

/** A charged leaf's one region and what its check needs. */
interface ChargedRegion {
  id: number;
  instructions: number;
  recorded: Array<{ ptr: AddressAst; offset: number }>;
  params: number;
  /** Its site-table index and node bytes. */
  index: number;
  size: number;
}

/** A call of a charged leaf: the empty block before it that takes the check, and the caller's side of it. */
interface ChargedCall {
  at: Expr;
  call: Expr;
  /** The call's site offset in the caller's node. */
  site: number;
  countdown: Countdown;
  /** The caller's local for loaded addresses (see addressExpr). */
  addressTemp: () => number;
  node: () => Expr;
  window: ChargeWindow | null;
}

/**
 * The charged calls of one region that run, in order, with nothing between the region's start and
 * them changing the countdown (callRegions in sample-walk.ts). The region's own check charges their
 * leaves too: when the countdown covers the region and all of them, none could fire and their
 * checks are skipped (each is one flag test); else the leaves' share is handed back, the region
 * checks as usual and sets the flag, and each leaf checks as usual. The same samples.
 */
interface ChargeWindow {
  /** The function it is in. */
  func: number;
  /** The block in the region's check's place, filled once every leaf's size is known. */
  check: Expr;
  build: (extra: number, flags: number[], arms?: WindowArms) => Expr;
  /** The local saying the window checks call by call (0 outside a window's run). */
  slow: number;
  calls: ChargedCall[];
  /** Instructions charged past the leaves: a loop header's next run (prechargeHeaders). */
  ahead: number;
  /** The header's check clears the flag (it tests the same flag), not the window's last call. */
  headerClears: boolean;
  /** That header's flag test at its loop's top and the check behind it (prechargeHeaders). */
  header?: WindowHeader;
}

/**
 * A loop whose only way back to its header is a plain `br` at a point of region B where nothing has
 * changed the countdown since B's start (the -O0 shape: header, exit test, body, `br`): B's check
 * charges the header's next run too, so the header tests one flag instead of checking. When B's
 * check finds the countdown short it hands the header's share back, checks as usual and sets the
 * flag; the header checks when the flag is set (and clears it). The region the loop is entered
 * from sets the flag, so the first iteration checks. The same samples: on the fast path no check
 * in B or the header could fire. When B's check is a window's (ChargeWindow), the window charges the
 * header too, and the header and the window's leaves test one flag, which the header clears. Loops with a fast-forward (sample-trips.ts), headers
 * holding a window and regions holding charged leaves outside a window are left alone.
 */
function prechargeHeaders(
  module: binaryen.Module,
  func: number,
  loops: readonly Expr[],
  walked: WalkedFunction,
  checks: Expr[],
  regionChecks: ReadonlyArray<(extra: number, flags: number[], arms?: WindowArms) => Expr>,
  leave: { skip: ReadonlySet<Expr>; busy: ReadonlySet<number>; windowAt: ReadonlyMap<number, ChargeWindow> },
): void {
  const used = new Set<number>();
  const entrySets = new Map<number, Expr[]>();
  loops.forEach((loop, j) => {
    const h = walked.regions.findIndex((r) => r.header && r.loop === j);
    const name = Loop.getName(loop);
    const branches = name ? walked.branchesTo.get(name) : undefined;
    const back = branches?.length === 1 ? branches[0]! : null;
    const entry = walked.loopEntries.get(loop) ?? null;
    if (h < 0 || !back || !back.plain || !back.clean || back.region === null || entry === null) return;
    const b = back.region;
    const header = walked.regions[h]!;
    if (leave.skip.has(loop) || b === h || used.has(b) || used.has(h) || leave.busy.has(b) || leave.busy.has(h)) return;
    if (leave.windowAt.has(h)) return;
    if (walked.regions[b]!.instructions === 0 || (entry > 0 && walked.regions[entry]!.instructions === 0)) return;
    used.add(b).add(h);
    const slow = addVar(func, binaryen.i32);
    const window = leave.windowAt.get(b);
    if (window) {
      // The header tests the window's flag, its own local now: set when the window came up short,
      // it is still set when the back edge reaches the header, which clears it (every iteration
      // passes the header before the window, so the window always starts with it clear).
      window.ahead += header.instructions;
      window.slow = slow;
      window.headerClears = true;
    } else checks[b] = regionChecks[b]!(header.instructions, [slow]);
    const own = checks[h]!;
    checks[h] = module.if(
      module.local.get(slow, binaryen.i32),
      module.block(null, [module.local.set(slow, module.i32.const(0)), own]),
    );
    if (window) window.header = { test: checks[h], check: own, loop };
    entrySets.set(entry, [...(entrySets.get(entry) ?? []), module.local.set(slow, module.i32.const(1))]);
  });
  for (const [k, sets] of entrySets) checks[k] = module.block(null, [checks[k]!, ...sets]);
}

/**
 * A region's check charging `total` instructions (its own and its window's leaves): when the
 * countdown does not cover them all, `own` (the region's usual check or count-down) runs on the
 * countdown as it was and the flag `slow` is set for the leaves to check one by one.
 */
function windowedCheck(
  module: binaryen.Module,
  t: Countdown,
  total: number,
  own: Expr,
  flags: number[],
  arms?: WindowArms,
): Expr {
  const i32 = binaryen.i32;
  const decremented = module.i32.sub(t.get(), module.i32.const(total));
  const tee = t.local !== null;
  return module.block(
    null,
    [
      ...(tee ? [] : [t.set(decremented)]),
      module.if(
        module.i32.lt_s(tee ? module.local.tee(t.local!, decremented, i32) : t.get(), module.i32.const(0)),
        module.block(
          null,
          [
            t.set(module.i32.add(t.get(), module.i32.const(total))),
            own,
            ...flags.map((flag) => module.local.set(flag, module.i32.const(1))),
            ...(arms ? [arms.short] : []),
          ],
          binaryen.auto,
        ),
        arms?.covered,
      ),
    ],
    binaryen.auto,
  );
}

/**
 * countdown -= k; if (countdown < 0) countdown = record(countdown, region, node, addresses): the
 * record and the rearm are out of line (passes/sample-record.ts); the node and the addresses are
 * read here, where the region's locals are.
 */
function countdownCheck(
  module: binaryen.Module,
  region: number,
  instructions: number,
  recorded: Array<{ ptr: AddressAst; offset: number }>,
  programBase: number,
  t: Countdown,
  addressTemp: () => number,
  records: RecordFunctions,
  node: () => Expr,
  local: (k: number) => Expr = (k) => module.local.get(k, binaryen.i32),
): Expr {
  const i32 = binaryen.i32;
  const addresses = recorded
    .slice(0, MAX_ADDRESSES)
    .map((r) =>
      module.i32.add(addressExpr(module, r.ptr, programBase, local, addressTemp), module.i32.const(r.offset)),
    );
  // In a local, one tee: the fast path is sub, compare, branch (7 instructions counted, not 8).
  const decremented = module.i32.sub(t.get(), module.i32.const(instructions));
  const tee = t.local !== null;
  return module.block(
    null,
    [
      ...(tee ? [] : [t.set(decremented)]),
      module.if(
        module.i32.lt_s(tee ? module.local.tee(t.local!, decremented, i32) : t.get(), module.i32.const(0)),
        t.set(records.call(t.get(), region, node(), addresses)),
      ),
    ],
    binaryen.none,
  );
}

/** Where a function keeps the countdown while it runs; `local` is the local's index, null for the global. */
interface Countdown {
  local: number | null;
  get(): Expr;
  set(value: Expr): Expr;
}

/**
 * A function with loops keeps the countdown in a local (a register, not a global's memory cell):
 * loaded at entry, stored around every call and at exit, reloaded after a sample. One without
 * loops runs each check about once per call, and the syncs around its calls and at entry and exit
 * would cost more than the checks: it counts down the global itself.
 */
function countdownOf(module: binaryen.Module, func: number, inLocal: boolean): Countdown {
  const i32 = binaryen.i32;
  if (!inLocal)
    return {
      local: null,
      get: () => module.global.get(NAMES.countdown, i32),
      set: (value) => module.global.set(NAMES.countdown, value),
    };
  const local = addVar(func, i32);
  return { local, get: () => module.local.get(local, i32), set: (value) => module.local.set(local, value) };
}

/** The callee (and whatever it calls) counts down the global: store the local before, reload after. */
function syncAroundCall(
  module: binaryen.Module,
  slot: ChildSlot,
  call: Expr,
  countdown: Countdown,
  tempOf: (type: number) => number,
): ChildSlot {
  const store = () => module.global.set(NAMES.countdown, countdown.get());
  const load = () => countdown.set(module.global.get(NAMES.countdown, binaryen.i32));
  const type = binaryen.getExpressionType(call);
  if (type === binaryen.unreachable) return slot;
  // After the operands ran (they may run region checks and calls of their own).
  const operands = childSlotsOf(call);
  const last = operands.at(-1);
  if (last) {
    const lastType = binaryen.getExpressionType(last.expr);
    if (lastType === binaryen.unreachable) return slot;
    const temp = tempOf(lastType);
    last.replace(
      module.block(null, [module.local.set(temp, last.expr), store(), module.local.get(temp, lastType)], lastType),
    );
  }
  const before = last ? [] : [store()];
  // The returned slot is the call's place inside the new block (for the context tree's announcement).
  if (type === binaryen.none) {
    const block = module.block(null, [...before, call, load()], binaryen.none);
    slot.replace(block);
    return { expr: call, replace: (c) => Block.setChildAt(block, before.length, c) };
  }
  const result = tempOf(type);
  const set = module.local.set(result, call);
  slot.replace(module.block(null, [...before, set, load(), module.local.get(result, type)], type));
  return { expr: call, replace: (c) => LocalSet.setValue(set, c) };
}

/**
 * An address expression as Wasm; a load reads only inside the program's memory (else 0: never a
 * trap). The loaded address goes through `temp` (tee, then get): evaluating it twice, once for the
 * bounds check and once for the load, doubled the code at every nested load (a chain of 30 loads
 * in yosys took Binaryen past its 4 GiB heap). One local serves every load: an inner load is done
 * with it before the outer one tees its result.
 */
function addressExpr(
  module: binaryen.Module,
  ast: AddressAst,
  programBase: number,
  local: (k: number) => Expr,
  temp: () => number,
): Expr {
  const i32 = binaryen.i32;
  if (ast === null) return module.i32.const(0);
  if (typeof ast === 'number') return module.i32.const(ast | 0);
  if ('l' in ast) return local(ast.l);
  if ('ld' in ast) {
    const address = addressExpr(module, ast.ld, programBase, local, temp);
    const loaded = temp();
    const limit = module.i32.sub(module.global.get(PROGRAM_BYTES32_GLOBAL, i32), module.i32.const(4 + ast.off));
    return module.if(
      module.i32.and(
        module.i32.le_u(module.local.tee(loaded, address, i32), limit),
        module.i32.ge_u(module.global.get(PROGRAM_BYTES32_GLOBAL, i32), module.i32.const(4 + ast.off)),
      ),
      module.i32.load(ast.off + programBase, 1, module.local.get(loaded, i32)),
      module.i32.const(0),
    );
  }
  const a = addressExpr(module, ast.a, programBase, local, temp);
  const b = addressExpr(module, ast.b, programBase, local, temp);
  switch (ast.op) {
    case 'add':
      return module.i32.add(a, b);
    case 'sub':
      return module.i32.sub(a, b);
    case 'mul':
      return module.i32.mul(a, b);
    case 'shl':
      return module.i32.shl(a, b);
    case 'shr_u':
      return module.i32.shr_u(a, b);
    case 'shr_s':
      return module.i32.shr_s(a, b);
    case 'and':
      return module.i32.and(a, b);
    case 'or':
      return module.i32.or(a, b);
    case 'xor':
      return module.i32.xor(a, b);
  }
}

function finishFunction(
  module: binaryen.Module,
  func: number,
  body: Expr,
  entryCheck: Expr,
  allocator: ReturnType<typeof allocatorOf>,
  tempOf: (type: number) => number,
  countdown: Countdown,
  frame: Frame | null,
  node: () => Expr,
  exits: boolean,
): void {
  const i32 = binaryen.i32;
  const resultType = Func.getResults(func);
  const prologue = [
    ...(frame ? frame.prologue : []),
    ...(countdown.local === null ? [] : [countdown.set(module.global.get(NAMES.countdown, i32))]),
    entryCheck,
  ];
  if (!exits) {
    Func.setBody(func, module.block(null, [...prologue, body], resultType));
    return;
  }
  const epilogue: Expr[] = countdown.local === null ? [] : [module.global.set(NAMES.countdown, countdown.get())];
  if (allocator) {
    // Sizes and the old block are read at entry: an allocator may reuse its parameters as locals.
    const param = (k: number | undefined) => (k === undefined ? module.i32.const(0) : module.local.get(k, i32));
    const bytesLocal = addVar(func, i32);
    const oldLocal = addVar(func, i32);
    prologue.push(
      module.local.set(
        bytesLocal,
        allocator.bytes.length === 2
          ? module.i32.mul(param(allocator.bytes[0]), param(allocator.bytes[1]))
          : param(allocator.bytes[0]),
      ),
      module.local.set(oldLocal, param(allocator.old)),
      module.global.set(NAMES.depth, module.i32.add(module.global.get(NAMES.depth, i32), module.i32.const(1))),
    );
    const result = resultType === binaryen.none ? null : tempOf(resultType);
    const address =
      allocator.kind === 'free'
        ? module.local.get(oldLocal, i32)
        : result === null
          ? module.i32.const(0)
          : module.local.get(result, i32);
    epilogue.push(
      module.global.set(NAMES.depth, module.i32.sub(module.global.get(NAMES.depth, i32), module.i32.const(1))),
      module.if(
        module.i32.eqz(module.global.get(NAMES.depth, i32)),
        module.call(
          NAMES.log,
          [
            module.i32.const(allocKindNumber(allocator.kind)),
            address,
            module.local.get(bytesLocal, i32),
            node(),
            module.local.get(oldLocal, i32),
            module.i32.const(-1),
          ],
          binaryen.none,
        ),
      ),
    );
    const exitBlock = module.block(EXIT_LABEL, [body], resultType);
    // The frame goes last: the allocation's node is found while it is still on the stack.
    const done = [...epilogue, ...(frame ? [frame.epilogue] : [])];
    Func.setBody(
      func,
      result === null
        ? module.block(null, [...prologue, exitBlock, ...done], binaryen.none)
        : module.block(
            null,
            [...prologue, module.local.set(result, exitBlock), ...done, module.local.get(result, resultType)],
            resultType,
          ),
    );
    return;
  }
  const exitBlock = module.block(EXIT_LABEL, [body], resultType);
  if (frame) epilogue.push(frame.epilogue);
  if (resultType === binaryen.none) {
    Func.setBody(func, module.block(null, [...prologue, exitBlock, ...epilogue], binaryen.none));
  } else {
    const result = tempOf(resultType);
    Func.setBody(
      func,
      module.block(
        null,
        [...prologue, module.local.set(result, exitBlock), ...epilogue, module.local.get(result, resultType)],
        resultType,
      ),
    );
  }
}

function addLogFunction(module: binaryen.Module, end: number): void {
  const i32 = binaryen.i32;
  const CUR = 6;
  const cur = () => module.local.get(CUR, i32);
  const fields = [
    ALLOC_RECORD.kind,
    ALLOC_RECORD.address,
    ALLOC_RECORD.bytes,
    ALLOC_RECORD.node,
    ALLOC_RECORD.old,
    ALLOC_RECORD.site,
  ];
  module.addFunction(
    NAMES.log,
    binaryen.createType([i32, i32, i32, i32, i32, i32]),
    binaryen.none,
    [i32],
    module.block(
      null,
      [
        module.local.set(CUR, module.global.get(NAMES.allocCursor, i32)),
        module.if(
          module.i32.gt_u(module.i32.add(cur(), module.i32.const(ALLOC_RECORD.size)), module.i32.const(end)),
          module.global.set(
            NAMES.allocDropped,
            module.i32.add(module.global.get(NAMES.allocDropped, i32), module.i32.const(1)),
          ),
          module.block(null, [
            ...fields.map((offset, k) => module.i32.store(offset, 4, cur(), module.local.get(k, i32))),
            module.global.set(NAMES.allocCursor, module.i32.add(cur(), module.i32.const(ALLOC_RECORD.size))),
          ]),
        ),
      ],
      binaryen.none,
    ),
  );
}

/** memory.grow(delta) outside an allocator is an allocation of its own (the kernels' arena); the caller passes its context node. */
function addGrowWrapper(module: binaryen.Module): void {
  const i32 = binaryen.i32;
  const [DELTA, SITE, NODE, RESULT] = [0, 1, 2, 3];
  const get = (k: number) => module.local.get(k, i32);
  module.addFunction(
    NAMES.grow,
    binaryen.createType([i32, i32, i32]),
    i32,
    [i32],
    module.block(
      null,
      [
        module.local.set(RESULT, module.call(MEMORY_GROW_FUNCTION, [get(DELTA)], i32)),
        module.if(
          module.i32.and(
            module.i32.ne(get(RESULT), module.i32.const(-1)),
            module.i32.eqz(module.global.get(NAMES.depth, i32)),
          ),
          module.call(
            NAMES.log,
            [
              module.i32.const(allocKindNumber('grow')),
              module.i32.shl(get(RESULT), module.i32.const(16)),
              module.i32.shl(get(DELTA), module.i32.const(16)),
              get(NODE),
              module.i32.const(0),
              get(SITE),
            ],
            binaryen.none,
          ),
        ),
        get(RESULT),
      ],
      i32,
    ),
  );
}

function findStackPointer(module: binaryen.Module): { global: string; top: number } | null {
  for (let i = 0; i < module.getNumGlobals(); i++) {
    const info = binaryen.getGlobalInfo(module.getGlobalByIndex(i));
    if (info.name !== '__stack_pointer' || !info.mutable || info.type !== binaryen.i32) continue;
    const init = binaryen.getExpressionInfo(info.init) as { id: number; value?: number };
    return { global: info.name, top: init.id === binaryen.ConstId ? (init.value as number) >>> 0 : 0 };
  }
  return null;
}

function localNames(func: number): string[] {
  const names: string[] = [];
  const count = Func.getNumLocals(func);
  for (let i = 0; i < count; i++) names.push(Func.hasLocalName(func, i) ? Func.getLocalName(func, i) : '');
  return names;
}

/** Per loop of a function, the index of its parent loop in the same function (-1: none); `byId` is the module's loops by id, built once. */
function loopParentsOf(byId: ReadonlyMap<string, { parent?: string | null }>, loopIds: string[]): number[] {
  return loopIds.map((id) => {
    const parent = byId.get(id)?.parent;
    return parent ? loopIds.indexOf(parent) : -1;
  });
}

/** Whether `loop` calls anything (a folded leaf's call included). */
function makesCalls(loop: Expr): boolean {
  let found = false;
  walkPostOrder(loop, (expr) => {
    if (idOf(expr) === Id.Call || idOf(expr) === Id.CallIndirect) found = true;
  });
  return found;
}
