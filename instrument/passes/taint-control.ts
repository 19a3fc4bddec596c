// Control dependence in the taint pass (implicit flow). Structure comes from the function's CFG
// (control-plan.ts), not from the nesting of constructs. Every conditional branch b keeps its
// condition's label in a local L_b from when it runs until control reaches its immediate
// post-dominator P. At P the locals assigned between b and P join L_b (implicit flow through the
// merge, whichever side assigned them), L_b is cleared, and the control label is recomputed as the
// caller's plus the L_b of the non-exit branches P is still inside. A branch that can leave a
// natural loop is that loop's exit condition: a sink, never part of the control label; values
// carried into the loop's next iteration take the labels of its exit conditions at the back edge.
import binaryen from 'binaryen';
import { Id, LocalGet, addVar, childSlots, idOf, type Expr } from '../ir.js';
import type { BranchPlan } from '../control-plan.js';
import type { TaintBranchSite } from './taint-layout.js';
import { isDead, operandLabel, orZero, shadowOf, type FunctionTaint } from './taint-function.js';
import { slotKey } from './taint-frame.js';
import { frameLoadLabel, frameStoreLabel } from './shadow-frame.js';
import { exitPower } from './taint-exit-power.js';
import { newBranchSite, newExit, recordExit, recordSite } from './taint-sink-records.js';

/** The number of reads of each local inside `expr`. */
export function readCounts(expr: Expr): Map<number, number> {
  const gets = new Map<number, number>();
  const visit = (e: Expr) => {
    if (idOf(e) === Id.LocalGet) gets.set(LocalGet.getIndex(e), (gets.get(LocalGet.getIndex(e)) ?? 0) + 1);
    for (const slot of childSlots(e)) visit(slot.expr);
  };
  visit(expr);
  return gets;
}

function joinInto(c: FunctionTaint, locals: number[], label: () => Expr): Expr[] {
  const { module } = c.m;
  const i32 = binaryen.i32;
  return locals.map((x) => {
    const s = shadowOf(c, x);
    return module.local.set(s, module.i32.or(module.local.get(s, i32), label()));
  });
}

/** Frame slots stored in the branch's region join its label (as locals assigned there do). */
function joinFrameSlots(c: FunctionTaint, b: BranchPlan, label: () => Expr): Expr[] {
  const { module } = c.m;
  const seen = new Set<string>();
  const out: Expr[] = [];
  for (const store of c.frame.stores) {
    const key = `${store.pointer}:${store.offset}:${store.bytes}`;
    if (!b.region.has(store.node) || seen.has(key)) continue;
    // Only a slot read outside the region (after the merge, or again before the branch) carries the label on.
    const readers = c.frame.readers.get(slotKey(store.pointer, store.offset));
    if (!readers || [...readers].every((node) => b.region.has(node))) continue;
    seen.add(key);
    if (c.frameLabels) {
      const frame = c.frameLabels;
      const old = frameLoadLabel(c.codegen, frame, store.pointer, store.offset, store.bytes);
      out.push(
        ...frameStoreLabel(c.codegen, frame, store.pointer, store.offset, store.bytes, module.i32.or(old, label())),
      );
      continue;
    }
    const pointer = () => module.local.get(store.pointer, binaryen.i32);
    const old = c.m.shadowMemory.load(c.codegen, pointer(), store.offset, store.bytes);
    out.push(...c.m.shadowMemory.store(c.codegen, pointer(), store.offset, store.bytes, module.i32.or(old, label())));
  }
  return out;
}

/** The branch's label-holding local (allocated on first use). */
function branchLabelLocal(c: FunctionTaint, b: BranchPlan): number {
  let local = c.control.branchLabels.get(b.expr);
  if (local === undefined) {
    local = addVar(c.func, binaryen.i32);
    c.control.branchLabels.set(b.expr, local);
  }
  return local;
}

/** Code at the start of CFG node `node`: branches whose control dependence ends here merge and stop controlling. */
export function nodeStart(c: FunctionTaint, node: number | undefined): Expr[] {
  if (node === undefined) return [];
  // Data flow only: a conversion's range check still hands its label to the converted value.
  const ending = c.m.branchFlow ? c.plan.endingAt.get(node) : c.plan.endingAt.get(node)?.filter((b) => b.conversion);
  if (!ending || ending.length === 0) return [];
  const { module } = c.m;
  const i32 = binaryen.i32;
  const out: Expr[] = [];
  for (const b of ending) {
    const l = branchLabelLocal(c, b);
    if (node === c.plan.cfg.exit) {
      if (b.returns)
        out.push(
          module.local.set(
            c.control.exitJoin,
            module.i32.or(module.local.get(c.control.exitJoin, i32), module.local.get(l, i32)),
          ),
        );
    } else {
      out.push(...joinInto(c, b.joined, () => module.local.get(l, i32)));
      out.push(...joinFrameSlots(c, b, () => module.local.get(l, i32)));
    }
  }
  for (const b of ending) out.push(module.local.set(branchLabelLocal(c, b), module.i32.const(0)));
  if (c.m.branchFlow && node !== c.plan.cfg.exit && ending.some((b) => b.exits.length === 0)) {
    const label = [
      module.local.get(c.control.callerLabel, i32),
      ...c.plan.controlling(node).map((b) => module.local.get(branchLabelLocal(c, b), i32)),
    ].reduce((a, b) => module.i32.or(a, b));
    out.push(module.local.set(c.control.label, label));
  }
  return out;
}

/**
 * A conditional branch's shadow code, run before it: record its label as a loop exit condition
 * (of every loop it can leave) or as a branch site, keep it until the post-dominator, and (not
 * an exit) add it to the control label.
 */
export function conditional(c: FunctionTaint, s: Expr, kind: TaintBranchSite['kind'], condition: Expr): Expr[] | null {
  const { module } = c.m;
  const i32 = binaryen.i32;
  const b = c.plan.branches.get(s);
  if (!b || isDead(condition)) return null;
  const cl = addVar(c.func, i32);
  const get = () => module.local.get(cl, i32);
  const out: Expr[] = [module.local.set(cl, orZero(c, operandLabel(c, condition)))];
  if (b.exits.length > 0) {
    const power = exitPower(c, condition);
    for (const k of b.exits) {
      const index = newExit(c, k);
      out.push(recordExit(c, k, index, get));
      if (power > 1) (c.loopLocals[k]!.site.exitPowers ??= [])[index] = power;
    }
  } else out.push(recordSite(c, newBranchSite(c, kind, s), get()));
  if (c.m.branchFlow || b.conversion) {
    const l = branchLabelLocal(c, b);
    out.push(module.local.set(l, module.i32.or(module.local.get(l, i32), get())));
    if (c.m.branchFlow && b.exits.length === 0)
      out.push(
        module.local.set(
          c.control.label,
          module.i32.or(module.local.get(c.control.label, i32), module.local.get(l, i32)),
        ),
      );
  }
  return out;
}

/** Before a branch to loop k's header: values carried into the next iteration (counters only, in 'loops' mode) take the loop's exit labels. */
function backEdge(c: FunctionTaint, k: number): Expr[] {
  if (!c.m.loopFlow) return [];
  const { module } = c.m;
  const i32 = binaryen.i32;
  // Every branch's control flow: every carried value; loops only: the counters of a nest's outer loops.
  const carried = c.m.branchFlow ? c.plan.carried(k) : c.plan.nestCounters(k);
  if (carried.length === 0) return [];
  const locals = c.loopLocals[k]!;
  return joinInto(c, carried, () => module.local.get(locals.exit, i32));
}

/** Back-edge code for every loop header among a branch's targets. */
export function backEdges(c: FunctionTaint, s: Expr): Expr[] {
  const out: Expr[] = [];
  for (const t of c.plan.cfg.targets.get(s) ?? []) {
    const start = c.plan.cfg.nodes[t]!.start;
    if (start.kind === 'header') out.push(...backEdge(c, c.plan.cfg.loopOfExpr.get(start.loop)!));
  }
  return out;
}
