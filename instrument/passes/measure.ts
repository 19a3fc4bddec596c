// Measurement pass (Score-P-like regions): every instrumented function is a region; at its entry
// and exit one call to the host clock (`taintlens.clock`, a performance.now()) times the visit.
// Per region calling context (a node of a calling-context tree made of regions only: functions
// left out are transparent, their time counts to the nearest region that called them) the
// module's own memory keeps the visit count, inclusive and exclusive time, and summary
// statistics instead of a trace (Adve et al. §3): the first visit apart, then Welford's running
// mean and variance, min and max of the later visits. An optional ring buffer keeps the last N
// visits (start, duration). Nothing is allocated and nothing else crosses into JS while the
// program runs. Exact instruction counts per region come from the loop profiler (one
// deterministic run), folded onto the same region call paths by the experiment (its regions.ts).
import binaryen from 'binaryen';
import { Func, Id, childSlots, idOf, addVar, i64Const, type Expr, type ChildSlot } from '../ir.js';
import type { ModuleAnalysis } from '../sites.js';
import { ContextTree } from '../context-tree.js';
import { REGION_RECORD, TRACE_ENTRY_BYTES, align8, type ContextTreeLayout } from '../layouts.js';
import { RESERVED_PREFIX } from '../reserved-names.js';
import type { PassDescriptor } from '../pass-contract.js';

export const CLOCK_IMPORT = { module: 'taintlens', name: 'clock' } as const;
const CLOCK = 'taintlens$clock';
const RECORD = 'taintlens$mrecord';
const CHILD_TIME = 'taintlens$mchild';
const EXIT_LABEL = 'taintlens$mexit';
const TREE_NAMES = {
  ctx: 'taintlens$mctx',
  site: 'taintlens$msite',
  next: 'taintlens$mnext',
  overflow: 'taintlens$moverflow',
  enter: 'taintlens$menter',
};

export interface MeasureOptions {
  /** Region functions by name; absent: every defined function. */
  functions?: string[];
  /** Visits kept per region context in the ring buffer (0: none). */
  trace?: number;
  /** Bytes for the region tree (default 16 MiB). */
  treeBytes?: number;
}

export interface MeasureLayout {
  tree: ContextTreeLayout;
  nodeBytes: number;
  trace: number;
  /** Function number (site-table index) → name, for the region functions only. */
  regions: Array<{ index: number; name: string }>;
}

export function measureRegions(options: MeasureOptions = {}): Array<{ name: string; bytes: number }> {
  return [{ name: 'measure', bytes: options.treeBytes ?? 16 << 20 }];
}

export const measurePass: PassDescriptor<MeasureLayout> = {
  name: 'measure',
  describe:
    'measurement regions: visits, inclusive/exclusive time and summary statistics per function and region call path',
  requires: ['site-analysis', 'reserved-memory'],
  provides: [],
  order: {},
  reserves: ['measure'],
  siteRecord:
    'MeasureLayout: the region tree, its node size and trace length, and the region functions by site-table index',
  regions: (options) => measureRegions(options.measure),
  apply: ({ module, analysis, layout, options }) =>
    applyMeasurement(module, analysis, layout.regions.measure!, options.measure),
};

export function regionNodeBytes(trace: number): number {
  return align8(REGION_RECORD.ring + TRACE_ENTRY_BYTES * trace);
}

export function applyMeasurement(
  module: binaryen.Module,
  analysis: ModuleAnalysis,
  region: { base: number; bytes: number },
  options: MeasureOptions = {},
): MeasureLayout {
  const trace = Math.max(0, Math.floor(options.trace ?? 0));
  const size = regionNodeBytes(trace);
  const wanted = options.functions ? new Set(options.functions) : null;
  const tree = new ContextTree(module, TREE_NAMES, region, 0, analysis.functions.length);
  module.addFunctionImport(CLOCK, CLOCK_IMPORT.module, CLOCK_IMPORT.name, binaryen.none, binaryen.f64);
  module.addGlobal(CHILD_TIME, binaryen.f64, true, module.f64.const(0));
  addRecordFunction(module, trace);
  const regions: MeasureLayout['regions'] = [];
  for (const fn of analysis.functions) {
    const name = Func.getName(fn.func);
    if (name.startsWith(RESERVED_PREFIX) || !Func.getBody(fn.func)) continue;
    if (wanted && !wanted.has(fn.site.name)) continue;
    instrumentRegion(module, tree, fn.func, fn.site.index, size);
    regions.push({ index: fn.site.index, name: fn.site.name });
  }
  return { tree: tree.layout, nodeBytes: size, trace, regions };
}

function instrumentRegion(module: binaryen.Module, tree: ContextTree, func: number, index: number, size: number): void {
  const i32 = binaryen.i32;
  const f64 = binaryen.f64;
  const parent = addVar(func, i32);
  const node = addVar(func, i32);
  const start = addVar(func, f64);
  const savedChild = addVar(func, f64);
  const elapsed = addVar(func, f64);
  let body = Func.getBody(func);
  body = replaceReturns(module, body);
  const resultType = Func.getResults(func);
  const prologue: Expr[] = [
    // Regions keep one child list: every region called beneath this one is found in it.
    tree.announce(REGION_RECORD.children),
    ...tree.prologue(parent, node, index, size),
    module.local.set(savedChild, module.global.get(CHILD_TIME, f64)),
    module.global.set(CHILD_TIME, module.f64.const(0)),
    module.local.set(start, module.call(CLOCK, [], f64)),
  ];
  const epilogue: Expr[] = [
    module.local.set(elapsed, module.f64.sub(module.call(CLOCK, [], f64), module.local.get(start, f64))),
    module.call(
      RECORD,
      [
        module.local.get(node, i32),
        module.local.get(start, f64),
        module.local.get(elapsed, f64),
        module.f64.sub(module.local.get(elapsed, f64), module.global.get(CHILD_TIME, f64)),
      ],
      binaryen.none,
    ),
    module.global.set(CHILD_TIME, module.f64.add(module.local.get(savedChild, f64), module.local.get(elapsed, f64))),
    tree.epilogue(parent),
  ];
  const exitBlock = module.block(EXIT_LABEL, [body], resultType);
  if (resultType === binaryen.none) {
    Func.setBody(func, module.block(null, [...prologue, exitBlock, ...epilogue], binaryen.none));
  } else {
    const result = addVar(func, resultType);
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

/** `return v` becomes `br $exit v`, so the epilogue runs on every way out. */
function replaceReturns(module: binaryen.Module, body: Expr): Expr {
  let root = body;
  const visit = (slot: ChildSlot, expr: Expr) => {
    for (const child of childSlots(expr)) visit(child, child.expr);
    if (idOf(expr) === Id.Return) {
      const value = childSlots(expr)[0]?.expr;
      slot.replace(module.br(EXIT_LABEL, 0, value));
    }
  };
  visit({ expr: body, replace: (c) => (root = c) }, body);
  return root;
}

/**
 * record(node, start, inclusive, exclusive): visits, time sums, the first visit apart, Welford's
 * mean and M2 plus min and max of the later visits, and the ring buffer.
 */
function addRecordFunction(module: binaryen.Module, trace: number): void {
  const i32 = binaryen.i32;
  const i64 = binaryen.i64;
  const f64 = binaryen.f64;
  const [NODE, START, INCL, EXCL, VISITS, N, DELTA, MEAN, SLOT] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const node = () => module.local.get(NODE, i32);
  const getF = (i: number) => module.local.get(i, f64);
  const loadF = (offset: number) => module.f64.load(offset, 8, node());
  const storeF = (offset: number, value: Expr) => module.f64.store(offset, 8, node(), value);
  const R = REGION_RECORD;
  const body: Expr[] = [
    module.local.set(VISITS, module.i64.add(module.i64.load(R.visits, 8, node()), i64Const(module, 1))),
    module.i64.store(R.visits, 8, node(), module.local.get(VISITS, i64)),
    storeF(R.inclusive, module.f64.add(loadF(R.inclusive), getF(INCL))),
    storeF(R.exclusive, module.f64.add(loadF(R.exclusive), getF(EXCL))),
    module.if(
      module.i64.eq(module.local.get(VISITS, i64), i64Const(module, 1)),
      storeF(R.first, getF(INCL)),
      module.block(null, [
        // n = visits - 1 later visits so far, this one included.
        module.local.set(
          N,
          module.f64.convert_u.i64(module.i64.sub(module.local.get(VISITS, i64), i64Const(module, 1))),
        ),
        module.local.set(DELTA, module.f64.sub(getF(INCL), loadF(R.mean))),
        module.local.set(MEAN, module.f64.add(loadF(R.mean), module.f64.div(getF(DELTA), getF(N)))),
        storeF(R.mean, getF(MEAN)),
        storeF(R.m2, module.f64.add(loadF(R.m2), module.f64.mul(getF(DELTA), module.f64.sub(getF(INCL), getF(MEAN))))),
        module.if(
          module.f64.eq(getF(N), module.f64.const(1)),
          module.block(null, [storeF(R.min, getF(INCL)), storeF(R.max, getF(INCL))]),
          module.block(null, [
            storeF(R.min, module.f64.min(loadF(R.min), getF(INCL))),
            storeF(R.max, module.f64.max(loadF(R.max), getF(INCL))),
          ]),
        ),
      ]),
    ),
  ];
  if (trace > 0) {
    const traced = () => module.i64.load(R.traced, 8, node());
    body.push(
      module.local.set(
        SLOT,
        module.i32.add(
          node(),
          module.i32.add(
            module.i32.const(R.ring),
            module.i32.mul(
              module.i32.wrap(module.i64.rem_u(traced(), i64Const(module, trace))),
              module.i32.const(TRACE_ENTRY_BYTES),
            ),
          ),
        ),
      ),
      module.f64.store(0, 8, module.local.get(SLOT, i32), getF(START)),
      module.f64.store(8, 8, module.local.get(SLOT, i32), getF(INCL)),
      module.i64.store(R.traced, 8, node(), module.i64.add(traced(), i64Const(module, 1))),
    );
  }
  module.addFunction(
    RECORD,
    binaryen.createType([i32, f64, f64, f64]),
    binaryen.none,
    [i64, f64, f64, f64, i32],
    module.block(null, body, binaryen.none),
  );
}
