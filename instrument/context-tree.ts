// A calling-context tree in reserved memory, shared by the passes that keep results per call path
// (the loop profiler, the taint analysis). Each function invocation finds or creates its node
// under the caller's node: the caller announces the call site (the byte offset of its child-slot
// list inside the caller's node) in a global right before the call, the callee's prologue calls
// the tree's `enter` function and makes its node current, its epilogue restores the caller's.
// Recursion folds onto the ancestor node of the same function (an alias node points to it), as in
// Ammons-Ball-Larus CCTs, so the tree stays finite. Nothing crosses into JS while the program runs.
//
// When the tree is full the program goes on: a call that needs a new node gets a scratch node at
// the end of the region (shared, never decoded) and so does everything it calls; the overflow
// global counts those entries, and the report says how many calls were not counted.
//
// Node layout: a header (function number, target, parent, call site, next sibling), then what the
// pass keeps there (child-slot lists, counters). The root has one child slot per function (index
// = 1-based function number) for entries from the host, indirect-call-free exports and callbacks.
//
// The node header, the tree's layout and its reader are in layouts.ts (no Binaryen there, for the
// decoders).
import binaryen from 'binaryen';
import { childSlots, typeOf, type Expr, type ChildSlot } from './ir.js';
import { ALIAS_BYTES, EXTERNAL_SITE, NODE_HEADER, align8, type ContextTreeLayout } from './layouts.js';

/** The scratch area at the end of the region: the largest node a full tree can still hand out. */
export function scratchBytes(regionBytes: number): number {
  return Math.min(1 << 20, regionBytes >>> 3);
}

/** Global and function names of one tree (each pass that keeps a tree uses its own). */
export interface ContextTreeNames {
  ctx: string;
  site: string;
  next: string;
  overflow: string;
  enter: string;
}

/** The root's child slots start at `rootSlots` and are indexed by 1-based function number. */
export function treeRootBytes(rootSlots: number, functions: number): number {
  return align8(rootSlots + 4 * (functions + 1));
}

export class ContextTree {
  readonly layout: ContextTreeLayout;
  /** Nodes at or above this address are scratch (handed out when the tree is full). */
  private readonly scratchStart: number;

  constructor(
    private readonly module: binaryen.Module,
    readonly names: ContextTreeNames,
    region: { base: number; bytes: number },
    private readonly rootSlots: number,
    functions: number,
  ) {
    const rootBytes = treeRootBytes(rootSlots, functions);
    this.layout = {
      base: region.base,
      bytes: region.bytes,
      rootBytes,
      exports: { next: names.next, overflow: names.overflow },
    };
    const i32 = binaryen.i32;
    module.addGlobal(names.ctx, i32, true, module.i32.const(region.base));
    module.addGlobal(names.site, i32, true, module.i32.const(EXTERNAL_SITE));
    module.addGlobal(names.next, i32, true, module.i32.const(region.base + rootBytes));
    module.addGlobal(names.overflow, i32, true, module.i32.const(0));
    module.addGlobalExport(names.next, names.next);
    module.addGlobalExport(names.overflow, names.overflow);
    this.scratchStart = region.base + region.bytes - scratchBytes(region.bytes);
    this.addEnterFunction(this.scratchStart, region.base + region.bytes);
  }

  /**
   * Function entry: saves the caller's node in `parentLocal`, finds or creates this invocation's
   * node (in `nodeLocal`) for function number `functionIndex` (0-based) of `nodeBytes` bytes.
   */
  prologue(parentLocal: number, nodeLocal: number, functionIndex: number, nodeBytes: number): Expr[] {
    const m = this.module;
    const i32 = binaryen.i32;
    return [
      m.local.set(parentLocal, m.global.get(this.names.ctx, i32)),
      m.local.set(nodeLocal, this.enterCall(parentLocal, functionIndex, nodeBytes)),
      ...this.makeCurrent(nodeLocal),
    ];
  }

  /**
   * The same as `prologue`, with the common case inline: a call from a site of a real (not root,
   * not scratch) node whose child list starts with this function's node. The list is per call
   * site, so a direct call's list holds one function and after its first call the lookup is one
   * load and one compare; everything else (first call, indirect call to another function, entry
   * from outside, full tree) calls `enter` as before. Same nodes, same tree.
   */
  inlinePrologue(parentLocal: number, nodeLocal: number, functionIndex: number, nodeBytes: number): Expr[] {
    const m = this.module;
    const i32 = binaryen.i32;
    const parent = () => m.local.get(parentLocal, i32);
    const site = () => m.global.get(this.names.site, i32);
    const fromRealNode = m.i32.and(
      m.i32.and(m.i32.ne(site(), m.i32.const(EXTERNAL_SITE)), m.i32.ne(parent(), m.i32.const(this.layout.base))),
      m.i32.lt_u(parent(), m.i32.const(this.scratchStart)),
    );
    return [
      m.local.set(parentLocal, m.global.get(this.names.ctx, i32)),
      m.if(
        fromRealNode,
        this.lookup(parentLocal, site, nodeLocal, functionIndex, nodeBytes),
        m.local.set(nodeLocal, this.enterCall(parentLocal, functionIndex, nodeBytes, site())),
      ),
      ...this.makeCurrent(nodeLocal),
    ];
  }

  /**
   * Into `nodeLocal`: the node of function number `functionIndex` (0-based) called from the call
   * site at `siteOffset` of the node in `parentLocal` (a function's own node, never the root), as
   * its prologue would find or create it; the current node and the announced site stay as they are.
   */
  childNode(
    parentLocal: number,
    siteOffset: number,
    nodeLocal: number,
    functionIndex: number,
    nodeBytes: number,
  ): Expr {
    const m = this.module;
    const site = () => m.i32.const(siteOffset);
    return m.if(
      m.i32.lt_u(m.local.get(parentLocal, binaryen.i32), m.i32.const(this.scratchStart)),
      this.lookup(parentLocal, site, nodeLocal, functionIndex, nodeBytes),
      m.local.set(nodeLocal, this.enterCall(parentLocal, functionIndex, nodeBytes, site())),
    );
  }

  /**
   * The node the prologue of function number `functionIndex` (0-based) would find or create for
   * the running call, computed later in that call instead: valid while the caller's node is current
   * and its announcement stands, i.e. anywhere in a callee that calls nothing and keeps no node.
   */
  currentCallNode(functionIndex: number, nodeBytes: number): Expr {
    const m = this.module;
    return m.call(
      this.names.enter,
      [
        m.global.get(this.names.ctx, binaryen.i32),
        m.global.get(this.names.site, binaryen.i32),
        m.i32.const(functionIndex + 1),
        m.i32.const(nodeBytes),
      ],
      binaryen.i32,
    );
  }

  /** Whether `node` is a scratch node (handed out when the tree was full: its calls are lost). */
  isScratch(node: Expr): Expr {
    return this.module.i32.ge_u(node, this.module.i32.const(this.scratchStart));
  }

  /** Counts `entries` more entries into call paths that found the tree full. */
  countLost(entries: Expr): Expr {
    const m = this.module;
    return m.global.set(this.names.overflow, m.i32.add(m.global.get(this.names.overflow, binaryen.i32), entries));
  }

  /** The head of the site's child list when it is this function's node, else `enter`. */
  private lookup(
    parentLocal: number,
    site: () => Expr,
    nodeLocal: number,
    functionIndex: number,
    nodeBytes: number,
  ): Expr {
    const m = this.module;
    const i32 = binaryen.i32;
    const node = () => m.local.get(nodeLocal, i32);
    const enter = () => m.local.set(nodeLocal, this.enterCall(parentLocal, functionIndex, nodeBytes, site()));
    return m.block(null, [
      m.local.set(nodeLocal, m.i32.load(0, 4, m.i32.add(m.local.get(parentLocal, i32), site()))),
      m.if(
        node(),
        m.if(
          m.i32.eq(m.i32.load(NODE_HEADER.func, 4, node()), m.i32.const(functionIndex + 1)),
          m.local.set(nodeLocal, m.i32.load(NODE_HEADER.target, 4, node())),
          enter(),
        ),
        enter(),
      ),
    ]);
  }

  private enterCall(parentLocal: number, functionIndex: number, nodeBytes: number, site?: Expr): Expr {
    const m = this.module;
    const i32 = binaryen.i32;
    return m.call(
      this.names.enter,
      [
        m.local.get(parentLocal, i32),
        site ?? m.global.get(this.names.site, i32),
        m.i32.const(functionIndex + 1),
        m.i32.const(nodeBytes),
      ],
      i32,
    );
  }

  private makeCurrent(nodeLocal: number): Expr[] {
    const m = this.module;
    return [
      m.global.set(this.names.site, m.i32.const(EXTERNAL_SITE)),
      m.global.set(this.names.ctx, m.local.get(nodeLocal, binaryen.i32)),
    ];
  }

  /** Function exit: the caller's node is current again. */
  epilogue(parentLocal: number): Expr {
    return this.module.global.set(this.names.ctx, this.module.local.get(parentLocal, binaryen.i32));
  }

  /** Sets the call site (offset of the caller's child-slot list for this call). */
  announce(siteOffset: number): Expr {
    return this.module.global.set(this.names.site, this.module.i32.const(siteOffset));
  }

  /** Before a host call: an export the host calls back enters from outside. */
  external(): Expr {
    return this.announce(EXTERNAL_SITE);
  }

  /**
   * Announces the call site right before `call` (held in `slot`), after its operands are
   * evaluated (they may contain calls themselves).
   */
  announceBefore(slot: ChildSlot, call: Expr, siteOffset: number, tempOf: (type: number) => number): void {
    placeBeforeCall(this.module, slot, call, this.announce(siteOffset), tempOf, true);
  }

  /** Finds or creates the context node of a function called from a call site of the current node. */
  private addEnterFunction(limit: number, end: number): void {
    const module = this.module;
    const { base } = this.layout;
    const { next: NEXT, overflow: OVERFLOW } = this.names;
    const i32 = binaryen.i32;
    const [PARENT, SITE_ARG, FID, SIZE, SLOT, N, ANC, REC, RECSIZE] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
    const get = (i: number) => module.local.get(i, i32);
    const set = (i: number, v: Expr) => module.local.set(i, v);
    const load = (offset: number, ptr: Expr) => module.i32.load(offset, 4, ptr);
    const store = (offset: number, ptr: Expr, value: Expr) => module.i32.store(offset, 4, ptr, value);
    const lost = module.block(null, [
      module.global.set(OVERFLOW, module.i32.add(module.global.get(OVERFLOW, i32), module.i32.const(1))),
      // A node larger than the scratch area cannot be handed out: the old trap (with the flag set).
      module.if(module.i32.gt_u(get(SIZE), module.i32.const(end - limit)), module.unreachable()),
      module.return(module.i32.sub(module.i32.const(end), get(SIZE))),
    ]);
    const body = module.block(
      null,
      [
        // Under a scratch node everything is scratch (its child slots are never written).
        module.if(module.i32.ge_u(get(PARENT), module.i32.const(limit)), lost),
        // The root has no call sites: an entry from outside (or a stale announcement left by a
        // callee that keeps no node) uses the root's slot of the function.
        module.if(
          module.i32.or(
            module.i32.eq(get(SITE_ARG), module.i32.const(EXTERNAL_SITE)),
            module.i32.eq(get(PARENT), module.i32.const(base)),
          ),
          module.block(null, [
            set(PARENT, module.i32.const(base)),
            set(SITE_ARG, module.i32.const(EXTERNAL_SITE)),
            set(
              SLOT,
              module.i32.add(module.i32.const(base + this.rootSlots), module.i32.shl(get(FID), module.i32.const(2))),
            ),
          ]),
          set(SLOT, module.i32.add(get(PARENT), get(SITE_ARG))),
        ),
        set(N, load(0, get(SLOT))),
        module.block('found', [
          module.loop(
            'scan',
            module.block(null, [
              module.br('found', module.i32.eqz(get(N))),
              module.if(
                module.i32.eq(load(NODE_HEADER.func, get(N)), get(FID)),
                module.return(load(NODE_HEADER.target, get(N))),
              ),
              set(N, load(NODE_HEADER.next, get(N))),
              module.br('scan'),
            ]),
          ),
        ]),
        set(ANC, get(PARENT)),
        module.block('ancestors', [
          module.loop(
            'up',
            module.block(null, [
              module.br('ancestors', module.i32.eqz(get(ANC))),
              module.br('ancestors', module.i32.eq(load(NODE_HEADER.func, get(ANC)), get(FID))),
              set(ANC, load(NODE_HEADER.parent, get(ANC))),
              module.br('up'),
            ]),
          ),
        ]),
        set(REC, module.global.get(NEXT, i32)),
        set(RECSIZE, module.select(get(ANC), module.i32.const(ALIAS_BYTES), get(SIZE))),
        module.if(
          module.i32.gt_u(module.i32.add(get(REC), get(RECSIZE)), module.i32.const(limit)),
          module.copyExpression(lost),
        ),
        module.global.set(NEXT, module.i32.add(get(REC), get(RECSIZE))),
        store(NODE_HEADER.func, get(REC), get(FID)),
        store(NODE_HEADER.target, get(REC), module.select(get(ANC), get(ANC), get(REC))),
        store(NODE_HEADER.parent, get(REC), get(PARENT)),
        store(NODE_HEADER.site, get(REC), get(SITE_ARG)),
        store(NODE_HEADER.next, get(REC), load(0, get(SLOT))),
        store(0, get(SLOT), get(REC)),
        load(NODE_HEADER.target, get(REC)),
      ],
      i32,
    );
    module.addFunction(
      this.names.enter,
      binaryen.createType([i32, i32, i32, i32]),
      i32,
      [i32, i32, i32, i32, i32],
      body,
    );
  }
}

/**
 * Puts `write` right before `call` (held in `slot`): after its operands when `afterOperands` (they
 * may contain calls that write the same thing; the last operand is kept in a temporary), else before
 * them. A call whose last operand never returns gets nothing: it is never made.
 */
export function placeBeforeCall(
  module: binaryen.Module,
  slot: ChildSlot,
  call: Expr,
  write: Expr,
  tempOf: (type: number) => number,
  afterOperands: boolean,
): void {
  const last = childSlots(call).at(-1);
  if (!afterOperands || !last) {
    slot.replace(module.block(null, [write, call], binaryen.auto));
    return;
  }
  const type = typeOf(last.expr);
  if (type === binaryen.unreachable) return;
  const temp = tempOf(type);
  last.replace(module.block(null, [module.local.set(temp, last.expr), write, module.local.get(temp, type)], type));
}
