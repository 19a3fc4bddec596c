// Where the taint pass keeps loop sinks: per loop and calling context (a full call path), in the
// nodes of a calling-context tree (instrument/context-tree.ts) in reserved memory. A node of a
// function holds, after the tree's header, one child-slot list per call site, then per loop its
// header executions and entries (i64 each), then one label word per exit condition of each loop
// (the union of the parameters that reached that exit branch in this context).
//
// During an invocation the sinks accumulate in locals; at function exit (and before host calls
// that may not return) they are added into the invocation's node. Only functions that have loops,
// or call (directly or through a table) functions that keep a node, keep one: a leaf helper
// without loops costs nothing, and its callers' paths stay exact.
import binaryen from 'binaryen';
import { Block, Call, Func, Id, addVar, i64Const, idOf, type Expr } from '../ir.js';
import type { ModuleAnalysis } from '../sites.js';
import { ContextTree } from '../context-tree.js';
import { NODE_HEADER, TAINT_LOOP_RECORD, align8, type ContextTreeLayout } from '../layouts.js';
import { CONTEXT_OVERFLOW_GLOBALS } from '../reserved-names.js';

/** A node's child-slot lists (one i32 per call site of the function) start after the header. */
export const CALL_SLOTS = NODE_HEADER.bytes;

export const TREE_NAMES = {
  ctx: 'taintlens$tctx',
  site: 'taintlens$tsite',
  next: 'taintlens$tnext',
  overflow: CONTEXT_OVERFLOW_GLOBALS[1]!,
  enter: 'taintlens$tenter',
};

/**
 * A loop's sinks: in each context node of its function, its record at byte `record` and one label
 * word per exit condition from byte `exitLabels` (exit i at `exitLabels + 4 * i`).
 */
export interface TaintLoopSite {
  id: string;
  function: string;
  record: number;
  exitLabels: number;
  exitConditions: number;
  /** Per exit condition the power of its bound's one value (taint-exit-power.ts), when above 1. */
  exitPowers?: number[];
}

export interface TaintContextLayout extends ContextTreeLayout {
  /** Per defined function, in site-table order: its node size (0: it keeps no node). */
  functions: Array<{ name: string; nodeBytes: number }>;
  callSlots: number;
}

/**
 * Functions that keep a context node, by Binaryen name: they have loops, make indirect calls, or
 * call one that does. A call names its target by Binaryen name; the site table's name differs for
 * a module without a name section (`func12` for Binaryen's `12`), so that name is only for `skipped`.
 */
export function functionsWithNodes(analysis: ModuleAnalysis, skipped: (name: string) => boolean): Set<string> {
  const withNodes = new Set<string>();
  const candidates = analysis.functions.filter((f) => !skipped(f.site.name));
  const defined = new Set(analysis.functions.map((f) => Func.getName(f.func)));
  for (const f of candidates) {
    if (f.loopExprs.length > 0 || f.callExprs.some((e) => idOf(e) === Id.CallIndirect))
      withNodes.add(Func.getName(f.func));
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const f of candidates) {
      const name = Func.getName(f.func);
      if (withNodes.has(name)) continue;
      const callsNode = f.callExprs.some(
        (e) => idOf(e) === Id.Call && withNodes.has(Call.getTarget(e)) && defined.has(Call.getTarget(e)),
      );
      if (callsNode) {
        withNodes.add(name);
        changed = true;
      }
    }
  }
  return withNodes;
}

/**
 * A context node's layout: after the header one child slot per call site, then each loop's record,
 * then each loop's exit-label words. Places the loops' records; returns the node size.
 */
export function layoutNode(calls: number, loops: readonly TaintLoopSite[]): number {
  const recordsAt = align8(CALL_SLOTS + 4 * calls);
  let exitAt = recordsAt + TAINT_LOOP_RECORD.bytes * loops.length;
  loops.forEach((site, k) => {
    site.record = recordsAt + TAINT_LOOP_RECORD.bytes * k;
    site.exitLabels = exitAt;
    exitAt += 4 * site.exitConditions;
  });
  return align8(exitAt);
}

interface LoopLocals {
  headers: number;
  entries: number;
  site: TaintLoopSite;
  exits: number[];
}

/** One function's loop sinks: locals during the invocation, its context node, the flushes. */
export class FunctionSinks {
  private readonly parent: number | null = null;
  private readonly node: number | null = null;
  private readonly loops: LoopLocals[] = [];
  private readonly pending: Array<{ holder: Expr; reset: boolean }> = [];

  constructor(
    private readonly module: binaryen.Module,
    private readonly func: number,
    private readonly tree: ContextTree,
    keepsNode: boolean,
    private readonly calls: number,
  ) {
    if (keepsNode) {
      this.parent = addVar(func, binaryen.i32);
      this.node = addVar(func, binaryen.i32);
    }
  }

  get keepsNode(): boolean {
    return this.node !== null;
  }

  /** Registers loop k (in order) with the locals counting its header executions and entries. */
  addLoop(k: number, site: TaintLoopSite, headers: number, entries: number): void {
    this.loops[k] = { headers, entries, site, exits: [] };
  }

  /** Joins `label` into exit condition `exitIndex` of loop k (ordinals are the pass's, from 0). */
  recordExit(k: number, exitIndex: number, label: Expr): Expr {
    const loop = this.loops[k]!;
    loop.site.exitConditions = Math.max(loop.site.exitConditions, exitIndex + 1);
    let local = loop.exits[exitIndex];
    if (local === undefined) loop.exits[exitIndex] = local = addVar(this.func, binaryen.i32);
    return this.module.local.set(local, this.module.i32.or(this.module.local.get(local, binaryen.i32), label));
  }

  /** Before a call to a defined function or through a table: the call site's slot list in this node. */
  announce(callIndex: number): Expr[] {
    return this.node === null ? [] : [this.tree.announce(CALL_SLOTS + 4 * callIndex)];
  }

  /** Before a host call: a callback into an export enters from outside. */
  external(): Expr {
    return this.tree.external();
  }

  /** Adds the sink locals into the node (filled in by `finish`, once the node layout is known); `reset` zeroes them after. */
  flush(reset = false): Expr {
    const holder = this.module.block(null, [], binaryen.none);
    this.pending.push({ holder, reset });
    return holder;
  }

  /**
   * Lays out the node and fills in the flushes. Returns the node size (0 without a node), the
   * prologue (enter the node) and the epilogue (leave it) to place around the body.
   */
  finish(functionIndex: number): { nodeBytes: number; prologue: Expr[]; epilogue: Expr[] } {
    if (this.node === null || this.parent === null) {
      if (this.loops.length > 0) throw new Error('internal: a function with loops keeps no context node');
      return { nodeBytes: 0, prologue: [], epilogue: [] };
    }
    const nodeBytes = layoutNode(
      this.calls,
      this.loops.map((loop) => loop.site),
    );
    for (const { holder, reset } of this.pending) {
      for (const expr of this.flushCode(reset)) Block.appendChild(holder, expr);
    }
    return {
      nodeBytes,
      prologue: this.tree.inlinePrologue(this.parent, this.node, functionIndex, nodeBytes),
      epilogue: [this.tree.epilogue(this.parent)],
    };
  }

  private flushCode(reset: boolean): Expr[] {
    const { module } = this;
    const i32 = binaryen.i32;
    const i64 = binaryen.i64;
    const node = () => module.local.get(this.node!, i32);
    const add64 = (at: number, local: number) =>
      module.i64.store(at, 8, node(), module.i64.add(module.i64.load(at, 8, node()), module.local.get(local, i64)));
    const or32 = (at: number, local: number) =>
      module.i32.store(at, 4, node(), module.i32.or(module.i32.load(at, 4, node()), module.local.get(local, i32)));
    const out: Expr[] = [];
    for (const loop of this.loops) {
      out.push(
        add64(loop.site.record + TAINT_LOOP_RECORD.headers, loop.headers),
        add64(loop.site.record + TAINT_LOOP_RECORD.entries, loop.entries),
      );
      loop.exits.forEach((local, i) => out.push(or32(loop.site.exitLabels + 4 * i, local)));
      if (reset) {
        out.push(
          module.local.set(loop.headers, i64Const(module, 0)),
          module.local.set(loop.entries, i64Const(module, 0)),
        );
        for (const local of loop.exits) if (local !== undefined) out.push(module.local.set(local, module.i32.const(0)));
      }
    }
    return out;
  }
}
