// Calling contexts for the sampling pass (issue 27), found only when a sample is taken. A function
// that makes calls keeps a 16-byte frame on a stack of call sites in reserved memory: its prologue
// pushes the frame and writes its tag (function number and node size), its epilogue pops it, and
// before each call it writes the call site (the offset of the call's child-slot list in its context
// node, as the context tree numbers sites; EXTERNAL_SITE before a host call, so a callback enters
// from outside) into the next frame. A function without calls keeps no frame: its call site is the
// one its caller wrote into the next frame. Nothing else runs per call.
//
// When a sample is due, one shared function (`taintlens$snode`) finds the sampled call's node in the
// context tree (instrument/context-tree.ts): from the top frame down to the first frame whose node
// is already known (cached in the frame in place of its tag) or that was entered from outside, then
// back up, finding or creating each frame's node with the tree's `enter` — the nodes the per-call
// prologue would have made, so the tree and every decoded call path are the same. Each frame's node
// is found once per frame (the next push overwrites the cache), so the walk costs the calls made
// since the last sample, not the stack's depth.
//
// The stack's depth is bounded without a check in most functions: a chain of frames of functions
// that are in no direct-call cycle and make no indirect or host calls holds each function at most
// once (a repeat would be a cycle), so only the other framed functions ("guarded") clamp their frame
// to the stack's limit; the region keeps room above the limit for one such chain. A sample taken
// with the stack above its limit (recursion deeper than the region's 2^17 frames, which V8's own
// stack does not allow) goes to a scratch node and is counted as lost, as a full tree's are.
import binaryen from 'binaryen';
import { Call, Func, addVar, childSlots, i64Const, idOf, Id, walkPostOrder, type ChildSlot, type Expr } from '../ir.js';
import { EXTERNAL_SITE, NODE_HEADER } from '../layouts.js';
import { placeBeforeCall, scratchBytes, type ContextTree } from '../context-tree.js';
import type { ModuleAnalysis } from '../sites.js';
import { RESERVED_PREFIX } from '../reserved-names.js';

/** The region holding the stack of call sites. */
export const SITE_STACK_REGION = 'sitestack';
export const SITE_STACK_BYTES = 2 << 20;
const FRAME = { site: 0, state: 8, bytes: 16 } as const;
const NAMES = { pointer: 'taintlens$ssp', node: 'taintlens$snode', child: 'taintlens$schild' };

/** What a call needs before it runs: nothing, a call site, or the mark of a host call. */
export type CallKind = 'none' | 'site' | 'host';

export interface FramePlan {
  /** Defined functions (by name) that keep a frame: they make calls that need a call site. */
  framed: Set<string>;
  /** Framed functions that clamp their frame to the stack's limit (see the header). */
  guarded: Set<string>;
}

/** How each call of `fn` is announced: skipped calls (folded leaves, the pass's own functions) need nothing. */
export function callKindOf(call: Expr, defined: ReadonlySet<string>, folded: ReadonlyMap<string, number>): CallKind {
  if (idOf(call) === Id.CallIndirect) return 'site';
  const target = Call.getTarget(call);
  if (target.startsWith(RESERVED_PREFIX) || folded.has(target)) return 'none';
  return defined.has(target) ? 'site' : 'host';
}

/** Which functions keep frames, and which of those clamp them. */
export function planFrames(analysis: ModuleAnalysis, folded: ReadonlyMap<string, number>): FramePlan {
  const defined = new Set(analysis.functions.map((fn) => Func.getName(fn.func)));
  const framed = new Set<string>();
  const unbounded = new Set<string>();
  const edges = new Map<string, string[]>();
  for (const fn of analysis.functions) {
    const name = Func.getName(fn.func);
    if (name.startsWith(RESERVED_PREFIX)) continue;
    const targets: string[] = [];
    for (const call of fn.callExprs) {
      const kind = callKindOf(call, defined, folded);
      if (kind === 'none') continue;
      framed.add(name);
      if (kind === 'host' || idOf(call) === Id.CallIndirect) unbounded.add(name);
      else targets.push(Call.getTarget(call));
    }
    edges.set(name, targets);
  }
  const guarded = new Set<string>();
  for (const component of cycles(edges)) for (const name of component) guarded.add(name);
  for (const name of unbounded) guarded.add(name);
  return { framed, guarded };
}

/** Functions on a direct-call cycle (Tarjan's strongly connected components, iteratively). */
function cycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let counter = 0;
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const targets = edges.get(top.node) ?? [];
      if (top.next < targets.length) {
        const target = targets[top.next++]!;
        if (!edges.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) low.set(top.node, Math.min(low.get(top.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== top.node);
      if (component.length > 1 || (edges.get(top.node) ?? []).includes(top.node)) found.push(component);
    }
  }
  return found;
}

/** A framed function's frame: its prologue and epilogue, and the writes before its calls. */
export interface Frame {
  prologue: Expr[];
  epilogue: Expr;
  /** Writes the call site of the call about to run (`kind` 'site': `siteOffset`; 'host': from outside). */
  siteWrite(kind: 'site' | 'host', siteOffset: number): Expr;
}

export class SiteStack {
  private readonly base: number;
  /** Frames at or above this address are past the stack's limit (their samples are lost). */
  private readonly limit: number;

  constructor(
    private readonly module: binaryen.Module,
    private readonly tree: ContextTree,
    region: { base: number; bytes: number },
    plan: FramePlan,
  ) {
    this.base = region.base;
    // Room above the limit for one chain of unguarded frames (each unguarded function once) and
    // the writes of its top frame; a module whose chain would not leave room guards every frame.
    const unguarded = [...plan.framed].filter((name) => !plan.guarded.has(name)).length;
    const room = FRAME.bytes * (unguarded + 3);
    if (region.bytes - room < region.bytes / 2) {
      for (const name of plan.framed) plan.guarded.add(name);
      this.limit = region.base + region.bytes - FRAME.bytes * 3;
    } else this.limit = region.base + region.bytes - room;
    module.addGlobal(NAMES.pointer, binaryen.i32, true, module.i32.const(region.base));
    this.addChildFunction();
    this.addNodeFunction();
  }

  /** The frame of function number `functionIndex` (0-based) with context nodes of `nodeBytes`. */
  frame(func: number, functionIndex: number, nodeBytes: number, guarded: boolean): Frame {
    const m = this.module;
    const i32 = binaryen.i32;
    const fp = addVar(func, i32);
    const at = () => m.local.get(fp, i32);
    const tag = m.i64.store(
      FRAME.state,
      8,
      at(),
      i64Const(m, (BigInt(nodeBytes) << 32n) | BigInt(((functionIndex + 1) << 1) | 1)),
    );
    const advance = () => m.global.set(NAMES.pointer, m.i32.add(at(), m.i32.const(FRAME.bytes)));
    const siteWrite = (kind: 'site' | 'host', siteOffset: number) =>
      m.i32.store(FRAME.bytes + FRAME.site, 4, at(), m.i32.const(kind === 'host' ? EXTERNAL_SITE : siteOffset));
    if (!guarded) {
      return {
        prologue: [m.local.set(fp, m.global.get(NAMES.pointer, i32)), advance(), tag],
        epilogue: m.global.set(NAMES.pointer, at()),
        siteWrite,
      };
    }
    const entry = addVar(func, i32);
    const stackTop = () => m.local.get(entry, i32);
    return {
      prologue: [
        m.local.set(entry, m.global.get(NAMES.pointer, i32)),
        m.local.set(fp, m.select(m.i32.lt_u(stackTop(), m.i32.const(this.limit)), stackTop(), m.i32.const(this.limit))),
        advance(),
        tag,
      ],
      epilogue: m.global.set(NAMES.pointer, stackTop()),
      siteWrite,
    };
  }

  /** The context node of the running call of function number `functionIndex` (for a sample record or an allocation). */
  node(functionIndex: number, nodeBytes: number, framed: boolean): Expr {
    const m = this.module;
    return m.call(
      NAMES.node,
      [m.i32.const(functionIndex + 1), m.i32.const(nodeBytes), m.i32.const(framed ? 1 : 0)],
      binaryen.i32,
    );
  }

  /**
   * The node of function number `functionIndex` (0-based) called from the call site at
   * `siteOffset` of the node `parent` computes (a charged leaf's, found at its call site).
   */
  child(parent: Expr, siteOffset: number, functionIndex: number, nodeBytes: number): Expr {
    const m = this.module;
    return m.call(
      NAMES.child,
      [parent, m.i32.const(siteOffset), m.i32.const(functionIndex + 1), m.i32.const(nodeBytes)],
      binaryen.i32,
    );
  }

  /**
   * Puts `write` right before `call` (in `slot`): before its operands when none of them calls
   * anything that `writes` a site of its own, else after them (the last one kept in a temporary).
   */
  static writeBefore(
    module: binaryen.Module,
    slot: ChildSlot,
    call: Expr,
    write: Expr,
    tempOf: (type: number) => number,
    writes: (call: Expr) => boolean,
  ): void {
    let calls = false;
    for (const operand of childSlots(call))
      walkPostOrder(operand.expr, (e) => {
        const id = idOf(e);
        if ((id === Id.Call || id === Id.CallIndirect) && writes(e)) calls = true;
      });
    placeBeforeCall(module, slot, call, write, tempOf, calls);
  }

  /**
   * snode(function + 1, node bytes, framed) → node. A framed caller's frame is the top one; a
   * function without a frame was called from the site written above the top frame.
   */
  private addNodeFunction(): void {
    const m = this.module;
    const i32 = binaryen.i32;
    const [FID, SIZE, FRAMED, TOP, F, NODE] = [0, 1, 2, 3, 4, 5];
    const get = (k: number) => m.local.get(k, i32);
    const set = (k: number, value: Expr) => m.local.set(k, value);
    const enter = this.tree.names.enter;
    const enterCall = (parent: Expr, site: Expr, fid: Expr, size: Expr) =>
      m.call(enter, [parent, site, fid, size], i32);
    const root = this.tree.layout.base;
    const scratch = root + this.tree.layout.bytes - scratchBytes(this.tree.layout.bytes);
    const state = () => m.i32.load(FRAME.state, 4, get(F));
    const unknown = () => m.i32.and(state(), m.i32.const(1));
    const siteAt = (frame: Expr) => m.i32.load(FRAME.site, 4, frame);
    const child = (site: () => Expr, fid: () => Expr, size: () => Expr) =>
      set(NODE, m.call(NAMES.child, [get(NODE), site(), fid(), size()], i32));
    const frameFid = () => m.i32.shr_u(state(), m.i32.const(1));
    const frameSize = () => m.i32.load(FRAME.state + 4, 4, get(F));
    const cache = () => m.i64.store(FRAME.state, 8, get(F), m.i64.extend_u(get(NODE)));
    const topFrame = () => m.i32.sub(get(TOP), m.i32.const(FRAME.bytes));
    const body = m.block(
      null,
      [
        set(TOP, m.global.get(NAMES.pointer, i32)),
        // Past the limit: a scratch node (the tree counts it as lost).
        m.if(
          m.i32.gt_u(get(TOP), m.i32.const(this.limit)),
          m.return(enterCall(m.i32.const(scratch), m.i32.const(EXTERNAL_SITE), get(FID), get(SIZE))),
        ),
        // No frame, or called from outside: the function's own entry from outside.
        m.if(
          m.i32.and(
            m.i32.eqz(get(FRAMED)),
            m.i32.or(
              m.i32.eq(get(TOP), m.i32.const(this.base)),
              m.i32.eq(siteAt(get(TOP)), m.i32.const(EXTERNAL_SITE)),
            ),
          ),
          m.return(enterCall(m.i32.const(root), m.i32.const(EXTERNAL_SITE), get(FID), get(SIZE))),
        ),
        // Down to the first frame with a known node, at the bottom or entered from outside.
        set(F, topFrame()),
        m.block('taintlens$known', [
          m.loop(
            'taintlens$down',
            m.block(null, [
              m.br('taintlens$known', m.i32.eqz(unknown())),
              m.br('taintlens$known', m.i32.eq(get(F), m.i32.const(this.base))),
              m.br('taintlens$known', m.i32.eq(siteAt(get(F)), m.i32.const(EXTERNAL_SITE))),
              set(F, m.i32.sub(get(F), m.i32.const(FRAME.bytes))),
              m.br('taintlens$down'),
            ]),
          ),
        ]),
        m.if(
          unknown(),
          m.block(null, [
            set(NODE, enterCall(m.i32.const(root), m.i32.const(EXTERNAL_SITE), frameFid(), frameSize())),
            cache(),
          ]),
          set(NODE, state()),
        ),
        // Back up, each frame's node under the one below.
        m.block('taintlens$top', [
          m.loop(
            'taintlens$up',
            m.block(null, [
              m.br('taintlens$top', m.i32.eq(get(F), topFrame())),
              set(F, m.i32.add(get(F), m.i32.const(FRAME.bytes))),
              child(() => siteAt(get(F)), frameFid, frameSize),
              cache(),
              m.br('taintlens$up'),
            ]),
          ),
        ]),
        m.if(get(FRAMED), m.return(get(NODE))),
        // A function without a frame: called from the site above the top frame.
        child(
          () => siteAt(get(TOP)),
          () => get(FID),
          () => get(SIZE),
        ),
        get(NODE),
      ],
      i32,
    );
    m.addFunction(NAMES.node, binaryen.createType([i32, i32, i32]), i32, [i32, i32, i32], body);
  }

  /**
   * schild(parent, site, function + 1, node bytes) → node: the head of the site's child list when
   * it is that function's (after the first sample there, almost always), else the tree's `enter`.
   */
  private addChildFunction(): void {
    const m = this.module;
    const i32 = binaryen.i32;
    const [PARENT, SITE, FID, SIZE, CHILD] = [0, 1, 2, 3, 4];
    const get = (k: number) => m.local.get(k, i32);
    const scratch = this.tree.layout.base + this.tree.layout.bytes - scratchBytes(this.tree.layout.bytes);
    const body = m.block(
      null,
      [
        m.if(
          m.i32.and(
            m.i32.lt_u(get(PARENT), m.i32.const(scratch)),
            m.i32.ne(get(PARENT), m.i32.const(this.tree.layout.base)),
          ),
          m.block(null, [
            m.local.set(CHILD, m.i32.load(0, 4, m.i32.add(get(PARENT), get(SITE)))),
            m.if(
              m.i32.and(
                m.i32.ne(get(CHILD), m.i32.const(0)),
                m.i32.eq(m.i32.load(NODE_HEADER.func, 4, get(CHILD)), get(FID)),
              ),
              m.return(m.i32.load(NODE_HEADER.target, 4, get(CHILD))),
            ),
          ]),
        ),
        m.call(this.tree.names.enter, [get(PARENT), get(SITE), get(FID), get(SIZE)], i32),
      ],
      i32,
    );
    m.addFunction(NAMES.child, binaryen.createType([i32, i32, i32, i32]), i32, [i32], body);
  }
}
