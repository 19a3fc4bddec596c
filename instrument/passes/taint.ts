// Dynamic taint analysis (Perf-Taint on WebAssembly): which marked parameters reach which loop exit
// conditions and conditional branches. This is the pass's entry and its descriptor (`taintPass`,
// registered as `taint`, as every pass file exports its own); its concepts live in their own files:
//   - taint-layout.ts: what the pass hands to the runtime (label globals, site records, options);
//   - taint-values.ts: value flow: every local has a shadow local, every mutable global a shadow
//     global; a value's label is the union (`or`) of its operands' labels (i32 bitsets, one bit
//     per parameter);
//   - taint-memory.ts: linear memory has labels in a reserved region inside the module's own
//     memory, one i32 per aligned word or per byte (shadow-memory.ts); a load joins the labels of
//     the bytes it reads, a store sets them, memory.copy/fill/init update the shadow range;
//   - taint-calls.ts: calling contexts: argument, result and control labels travel in globals
//     between defined functions; imports follow the library database;
//   - taint-control.ts: control dependence (implicit flow) from the function's CFG: a value merging
//     definitions selected by a tainted condition carries the condition's label; loop exit
//     conditions never enter the control label, so a constant loop nested in an n-loop stays
//     constant. `implicitFlow: 'loops'` keeps only the loop part (exit labels into values carried
//     to the next iteration), `'off'` drops all of this;
//   - taint-sink-records.ts and taint-sinks.ts: sinks: per loop and calling context the labels of
//     each exit condition and its header executions; per other conditional branch its labels and
//     whether it ran; per import call with a library cost the labels of the named arguments;
//   - taint-frame.ts: stack-frame slots (clang -O0 locals in memory) treated as locals;
//   - taint-counters.ts: counters in memory indexed by a value (`count[r]++`) take the index's label;
//   - taint-statements.ts: the walk that puts each statement's shadow code next to it.
// Every function is first flattened by Binaryen (three-address form: operands are local.get/const,
// blocks carry no values). After the rewrite our own cleanup, which never reorders a trap or an
// effect, folds labels proven 0 (taint-clean.ts), redirects reads of copies and sinks single-read
// temporaries back into expression trees (taint-copies.ts); then Binaryen's function optimizer
// drops what became dead (taint-optimize.ts).
import binaryen from 'binaryen';
import type { PassDescriptor } from '../pass-contract.js';
import { Func, addVar, walkPostOrder, type Expr } from '../ir.js';
import type { ModuleAnalysis, FunctionAnalysis } from '../sites.js';
import { planControl } from '../control-plan.js';
import { MEMORY_GROW_FUNCTION, PROGRAM_PAGES_GLOBAL, type MemoryLayout } from '../memory-layout.js';
import { ContextTree } from '../context-tree.js';
import { foldCleanLabels } from './taint-clean.js';
import { gatherInvariantJoins, hoistInvariantJoins } from './taint-hoist.js';
import { deriveHeaderCounts } from './taint-header-counts.js';
import { propagateCopies, sinkTemporaries } from './taint-copies.js';
import { dropDeadCallLabels } from './taint-dead-call-labels.js';
import { passArgLabelsAsParams } from './taint-call-params.js';
import {
  FunctionSinks,
  TREE_NAMES,
  CALL_SLOTS,
  functionsWithNodes,
  layoutNode,
  type TaintContextLayout,
} from './taint-sinks.js';
import { addGuard, mayHaveSites, recordUncovered } from './taint-uncovered.js';
import { callFacts, type CallFacts } from './taint-call-facts.js';
import { versionAlignedFunction, versionAlignedLoops } from './shadow-versioning.js';
import { gatherChainJoins } from './taint-chain-joins.js';
import { joinChainWords } from './taint-chain-words.js';
import { hoistLoopLabels } from './shadow-loop-labels.js';
import type { InstrumentationLocals } from '../program-expressions.js';
import { placeShadow, shadowMemory, SHADOW_FUNCTIONS } from './shadow-memory.js';
import {
  ARG_GLOBAL,
  CTL_GLOBAL,
  RET_GLOBAL,
  SHADOW_GLOBAL_PREFIX,
  SITE_SINK_BYTES,
  TAINT_SCHEMA,
  taintRegions,
  DEFAULT_IMPLICIT_FLOW,
  DEFAULT_POINTER_LABELS,
  type TaintLayout,
  type TaintOptions,
} from './taint-layout.js';
import { EXIT_LABEL, copyFlat, tempIn, type FunctionTaint, type ModuleTaint } from './taint-function.js';
import { nodeStart, readCounts } from './taint-control.js';
import { flush } from './taint-sink-records.js';
import { namedBlock, stmtThen } from './taint-statements.js';
import { stackFrame, stackPointerGlobal } from './taint-frame.js';
import { frameExit, planFrameLabels } from './shadow-frame.js';
import { counterStores } from './taint-counters.js';
import { allocatorOf } from '../allocators.js';
import { isFunctionalMath } from '../functional.js';
import { COALESCE_LOCALS_LIMIT, optimizeTainted } from './taint-optimize.js';

export {
  TAINT_SCHEMA,
  ARG_GLOBAL,
  RET_GLOBAL,
  CTL_GLOBAL,
  SHADOW_GLOBAL_PREFIX,
  SITE_SINK_BYTES,
  taintRegions,
  type ImportRule,
  type TaintOptions,
  type TaintBranchSite,
  type TaintImportSite,
  type TaintLayout,
  type TaintLoopSite,
  type TaintContextLayout,
} from './taint-layout.js';

const NO_LOCALS: Set<number> = new Set();

/** Label bits: the names given (bit i = names[i]), then the source labels of library rules. */
function labelBits(options: TaintOptions): { names: string[]; nameBits: Map<string, number> } {
  const names = [...(options.names ?? [])];
  const nameBits = new Map<string, number>();
  names.forEach((n, i) => nameBits.set(n, i));
  for (const rule of Object.values(options.library ?? {})) {
    for (const source of rule.sources ?? []) {
      if (!nameBits.has(source.label)) {
        nameBits.set(source.label, names.length);
        names.push(source.label);
      }
    }
  }
  if (names.length > 32) throw new Error(`at most 32 parameters can be tracked (got ${names.length})`);
  return { names, nameBits };
}

/**
 * The label globals: argument, result and control labels (taint-calls.ts), and a shadow global per
 * mutable or exported global. Returns the module's imports and defined functions on the way.
 */
function addLabelGlobals(
  module: binaryen.Module,
  out: TaintLayout,
): Pick<ModuleTaint, 'importInfo' | 'defined' | 'globalsShadow'> {
  const i32 = binaryen.i32;
  const importInfo = new Map<string, { key: string; params: number; results: number }>();
  const defined = new Set<string>();
  let maxArgs = 0;
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    const params = binaryen.expandType(info.params).length;
    maxArgs = Math.max(maxArgs, params);
    if (info.module)
      importInfo.set(info.name, {
        key: `${info.module}.${info.base}`,
        params,
        results: binaryen.expandType(info.results).length,
      });
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

  // Shadow globals for mutable globals (ours excluded). The stack pointer has none: stack addresses
  // carry no label (DFSan's allocas are unlabelled), so a prologue run under a tainted branch does
  // not put that branch's label on every later frame access when loads join address labels.
  const globalsShadow = new Map<string, string>();
  const stackPointer = stackPointerGlobal(module);
  const exportedGlobals = new Map<string, string>();
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind === binaryen.ExternalGlobal) exportedGlobals.set(info.value, info.name);
  }
  const globalCount = module.getNumGlobals();
  for (let i = 0; i < globalCount; i++) {
    const info = binaryen.getGlobalInfo(module.getGlobalByIndex(i));
    if (info.name.startsWith('taintlens$') || info.name === PROGRAM_PAGES_GLOBAL || info.name === stackPointer)
      continue;
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
  return { importInfo, defined, globalsShadow };
}

export function applyTaint(
  module: binaryen.Module,
  analysis: ModuleAnalysis,
  layout: MemoryLayout,
  options: TaintOptions = {},
  /** The program's own accesses and calls and the other passes' own locals, when those passes ran first. */
  program?: { expressions: Set<Expr>; locals: InstrumentationLocals },
): TaintLayout {
  const foreign = program ? (expr: Expr) => !program.expressions.has(expr) : () => false;
  const shadow = shadowMemory(placeShadow(options.granularity ?? 'word', layout.regions.shadow!, layout.programBase));
  const sinkRegion = layout.regions.taint!;
  const { names, nameBits } = labelBits(options);
  const skip = new Set([MEMORY_GROW_FUNCTION, ...SHADOW_FUNCTIONS]);
  const skipped = (name: string) => skip.has(name) || name.startsWith('taintlens$');
  const tree = new ContextTree(
    module,
    TREE_NAMES,
    layout.regions['taint-contexts']!,
    CALL_SLOTS,
    analysis.functions.length,
  );
  const withNodes = functionsWithNodes(analysis, skipped);
  // The functions to instrument (null: all); the others get site records and an entry guard only.
  const covered = options.functions ? new Set(options.functions) : null;
  // Functions instrumented with the same analysis, without the steps that only make the code faster (null: all).
  const cold = options.cold === 'all' ? null : new Set(options.cold ?? []);
  const contexts: TaintContextLayout = {
    ...tree.layout,
    callSlots: CALL_SLOTS,
    functions: analysis.functions.map((f) => ({ name: f.site.name, nodeBytes: 0 })),
  };
  const out: TaintLayout = {
    schema: TAINT_SCHEMA,
    shadow: shadow.placement,
    sinks: sinkRegion,
    contexts,
    names,
    loops: [],
    branches: [],
    imports: [],
    entered: [],
    ...(covered ? { guards: [] } : {}),
    argGlobals: [],
    shadowGlobals: {},
    maxArgs: 0,
    exports: {},
  };
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind === binaryen.ExternalFunction) out.exports[info.name] = info.value;
  }
  const globals = addLabelGlobals(module, out);
  shadow.addHelpers(module);
  const implicitFlow = options.implicitFlow ?? DEFAULT_IMPLICIT_FLOW;
  const m: ModuleTaint = {
    module,
    layout: out,
    shadowMemory: shadow,
    programBase: layout.programBase,
    options,
    branchFlow: implicitFlow === 'on',
    loopFlow: implicitFlow !== 'off',
    joinPointers: (options.pointerLabels ?? DEFAULT_POINTER_LABELS) === 'join',
    nameBits,
    ...globals,
    sinkCursor: { value: sinkRegion.base + 64 },
    foreign,
    stackPointer: stackPointerGlobal(module),
    allocators: allocatorFunctions(module, globals.defined),
    functional: functionalFunctions(module, globals.defined),
  };
  const uninstrumented = new Map<number, CallFacts>();
  for (const fn of analysis.functions) {
    if (skipped(fn.site.name)) continue;
    const body = Func.getBody(fn.func);
    if (!body) continue;
    const keepsNode = withNodes.has(Func.getName(fn.func));
    const foreignLocals = program?.locals.get(fn.func) ?? NO_LOCALS;
    if (covered && !covered.has(fn.site.name)) {
      if (mayHaveSites(m, fn))
        contexts.functions[fn.site.index]!.nodeBytes = recordUncovered(m, fn, keepsNode, foreignLocals);
      else {
        contexts.functions[fn.site.index]!.nodeBytes = keepsNode ? layoutNode(fn.callExprs.length, []) : 0;
        addGuard(m, fn);
      }
      uninstrumented.set(fn.func, callFacts(Func.getBody(fn.func)));
      continue;
    }
    // Locals that exist before flattening are the program's own; flatten only appends temporaries.
    const originalLocals = Func.getNumLocals(fn.func);
    module.runPassesOnFunction(fn.func, ['flatten']);
    const sinks = new FunctionSinks(module, fn.func, tree, keepsNode, fn.callExprs.length);
    contexts.functions[fn.site.index]!.nodeBytes = instrumentFunction(
      m,
      fn,
      originalLocals,
      sinks,
      foreignLocals,
      cold === null || cold.has(fn.site.name),
    );
  }
  if (m.sinkCursor.value > sinkRegion.base + sinkRegion.bytes) throw new Error('internal: taint sink table overflow');
  if (!options.noOptimize) {
    const written = new Set([...out.argGlobals, CTL_GLOBAL, TREE_NAMES.site]);
    dropDeadCallLabels(module, analysis.functions, written, TREE_NAMES.site, uninstrumented);
    passArgLabelsAsParams(module, analysis.functions, out.argGlobals, written, uninstrumented);
  }
  return out;
}

/** Instruments one function; returns the size of its context nodes (0: it keeps none). */
function instrumentFunction(
  m: ModuleTaint,
  fn: FunctionAnalysis,
  originalLocals: number,
  sinks: FunctionSinks,
  foreignLocals: Set<number>,
  cold: boolean,
): number {
  const { module } = m;
  const func = fn.func;
  const i32 = binaryen.i32;
  // Every local from here on is the pass's own (labels, counters, temporaries).
  const firstLabelLocal = Func.getNumLocals(func);
  const controlLabel = addVar(func, i32);
  const resultType = Func.getResults(func);
  const result = resultType === binaryen.none ? null : { value: addVar(func, resultType), label: addVar(func, i32) };
  const callerLabel = addVar(func, i32);
  const exitJoin = addVar(func, i32);
  const temps = new Map<string, number>();
  const plan = planControl(Func.getBody(func), originalLocals, readCounts(Func.getBody(func)));
  const frame = stackFrame(
    Func.getBody(func),
    binaryen.expandType(Func.getParams(func)).length,
    m.stackPointer,
    plan.cfg.nodeOf,
    (relocated) => (relocated >>> 0) - m.programBase,
  );
  const c: FunctionTaint = {
    m,
    fn,
    func,
    foreignLocals,
    sinks,
    result,
    codegen: { module, temp: (type, key) => tempIn(func, temps, type, key), copy: (expr) => copyFlat(module, expr) },
    shadow: new Map(),
    plan,
    frame,
    frameLabels:
      m.stackPointer !== null && m.shadowMemory.placement.granularity === 'word'
        ? planFrameLabels(
            func,
            Func.getBody(func),
            frame.pointers,
            m.stackPointer,
            (relocated) => (relocated >>> 0) - m.programBase,
            m.branchFlow,
          )
        : null,
    counters: counterStores(Func.getBody(func)),
    control: { label: controlLabel, callerLabel, exitJoin, branchLabels: new Map() },
    loopIndex: 0,
    loopLocals: [],
    siteLocals: [],
    callIndex: 0,
    branchTargets: new Set(),
  };
  if (c.plan.cfg.loops.length !== fn.loopExprs.length) {
    throw new Error(
      `internal: the CFG of ${fn.site.name} has ${c.plan.cfg.loops.length} loops, the site table ${fn.loopExprs.length}`,
    );
  }
  const bodyStmts = stmtThen(c, Func.getBody(func));
  // After the exit block: returns branch to its end.
  const atExit = nodeStart(c, c.plan.cfg.exit);
  // A call counted twice would announce a slot past the end of the node and overwrite the next one.
  if (c.callIndex > fn.callExprs.length)
    throw new Error(
      `internal: taint pass found ${c.callIndex} calls in ${fn.site.name}, the site table ${fn.callExprs.length}`,
    );
  if (c.loopIndex !== fn.loopExprs.length) {
    throw new Error(
      `internal: taint pass found ${c.loopIndex} loops in ${fn.site.name}, the site table ${fn.loopExprs.length}`,
    );
  }
  const params = binaryen.expandType(Func.getParams(func));
  const prologue: Expr[] = [
    module.local.set(callerLabel, module.global.get(CTL_GLOBAL, i32)),
    module.local.set(controlLabel, module.local.get(callerLabel, i32)),
  ];
  params.forEach((_, k) => {
    const s = c.shadow.get(k);
    if (s !== undefined) prologue.push(module.local.set(s, module.global.get(ARG_GLOBAL(k), i32)));
  });
  const tail: Expr[] = [...flush(c)];
  if (c.frameLabels) tail.push(...frameExit(c.codegen, m.shadowMemory, c.frameLabels));
  const node = sinks.finish(fn.site.index);
  prologue.push(...node.prologue);
  if (node.nodeBytes === 0) prologue.push(enteredMark(c));
  tail.push(...node.epilogue);
  if (result !== null) {
    tail.push(
      module.global.set(
        RET_GLOBAL,
        module.i32.or(module.local.get(result.label, i32), module.local.get(exitJoin, i32)),
      ),
    );
    tail.push(module.local.get(result.value, resultType));
  }
  const exitBlock = namedBlock(c, EXIT_LABEL, bodyStmts);
  Func.setBody(func, module.block(null, [...prologue, exitBlock, ...atExit, ...tail], resultType));
  // Before versioning: its copy of a loop would double every temporary's reads, and it checks
  // at loop entry every local a pointer is copied through.
  // Not above the coalesce limit, where Binaryen's optimizer runs its linear passes only: sinking
  // builds expression chains as deep as the function is long (a recursive walk of a 50,000-local
  // function overflowed the stack) and the walks took minutes there.
  // A function that ran little keeps its shadow code as written: every step below only makes it
  // faster, and together they are most of the pass's time per function (src/taint/cold-functions.ts).
  if (cold) {
    assertTree(Func.getBody(func), fn.site.name);
    return node.nodeBytes;
  }
  if (!m.options.noOptimize && binaryen.getFunctionInfo(func).vars.length <= COALESCE_LOCALS_LIMIT) {
    foldCleanLabels(module, func);
    propagateCopies(module, func);
    sinkTemporaries(module, func, m.shadowMemory);
    // Both walk the whole function to find its loops: a function without loops is left alone.
    if (fn.loopExprs.length > 0) {
      hoistInvariantJoins(module, Func.getBody(func));
      gatherInvariantJoins(module, func, firstLabelLocal);
      deriveHeaderCounts(module, func, Func.getBody(func), firstLabelLocal);
    }
  }
  // Before the optimizer: coalesce-locals would merge pointer locals with label locals.
  if (!m.options.noVersioning) {
    versionAlignedFunction(module, func, m.shadowMemory);
    if (fn.loopExprs.length > 0) versionAlignedLoops(module, func, m.shadowMemory);
  }
  assertTree(Func.getBody(func), fn.site.name);
  if (!m.options.noOptimize) optimizeTainted(module, func, m.shadowMemory);
  // After the optimizer: its copies of the loops are as the engine will see them.
  if (!m.options.noVersioning && !m.options.noLoopLabels && !m.options.noOptimize && fn.loopExprs.length > 0)
    hoistLoopLabels(module, func, { labels: m.shadowMemory.placement.labels, programBase: m.programBase });
  if (!m.options.noOptimize && !m.options.noChainJoins && fn.loopExprs.length > 0) gatherChainJoins(module, func);
  if (!m.options.noOptimize && !m.options.noChainWords && fn.loopExprs.length > 0) joinChainWords(module, func);
  return node.nodeBytes;
}

/**
 * Defined functions that allocate (instrument/allocators.ts). The address an allocator returns
 * follows its free lists, which follow earlier requested sizes: it is not data derived from a
 * size, so a loop walking a list of fixed length must not depend on the sizes allocated before.
 */
function allocatorFunctions(module: binaryen.Module, defined: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const name of defined) {
    const info = binaryen.getFunctionInfo(module.getFunction(name));
    const allocator = allocatorOf(name, binaryen.expandType(info.params), info.results);
    if (allocator && allocator.kind !== 'free') out.add(name);
  }
  return out;
}

/** Defined math functions whose result label is the union of their arguments' (instrument/functional.ts). */
function functionalFunctions(module: binaryen.Module, defined: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const name of defined) {
    const info = binaryen.getFunctionInfo(module.getFunction(name));
    if (isFunctionalMath(name, binaryen.expandType(info.params), info.results)) out.add(name);
  }
  return out;
}

/** For a function without a context node: its sink-table word, set to 1 at entry (the run says whether it ran). */
function enteredMark(c: FunctionTaint): Expr {
  const sink = c.m.sinkCursor.value;
  c.m.sinkCursor.value += SITE_SINK_BYTES;
  c.m.layout.entered.push({ function: c.fn.site.name, sink });
  return c.m.module.i32.store(0, 4, c.m.module.i32.const(sink), c.m.module.i32.const(1));
}

/**
 * Binaryen's passes assume a tree: an expression reused in two places is rewritten twice (local
 * renumbering then maps its index twice). Shadow code must build fresh expressions; this checks it.
 */
function assertTree(root: Expr, where: string): void {
  const seen = new Set<Expr>();
  walkPostOrder(root, (expr) => {
    if (seen.has(expr)) throw new Error(`internal: taint pass reused an expression in ${where}`);
    seen.add(expr);
  });
}

export const taintPass: PassDescriptor<TaintLayout> = {
  name: 'taint',
  describe: 'dynamic taint: which marked parameters reach each loop exit condition and branch',
  requires: ['site-analysis', 'reserved-memory', 'program-expressions'],
  uses: ['instrumentation-locals'],
  provides: [],
  order: { last: 'it flattens code the other passes cannot follow, and must see their code to leave it alone' },
  reserves: ['taint', 'taint-contexts', 'shadow'],
  siteRecord:
    'TaintLayout: shadow placement, sink and context-tree regions, loop, branch and import sink sites, argument-label and shadow globals',
  regions: (options) =>
    taintRegions(
      options.taint?.sinkBytes ?? 4 << 20,
      options.taint?.granularity,
      options.taint?.contextBytes ?? options.contextBytes,
    ),
  apply: ({ module, analysis, layout, options, program, instrumentationLocals }) =>
    applyTaint(
      module,
      analysis,
      layout,
      options.taint,
      program && { expressions: program, locals: instrumentationLocals },
    ),
};
