// Argument labels of direct calls passed as parameters (issue 27). The taint pass hands every
// argument's label to the callee through an exported global (`taintlens$arg<k>`, taint-calls.ts):
// the caller writes it right before the call, the callee copies it into a local at entry. For a
// callee that only direct calls reach, those labels can travel as extra i32 parameters instead:
// the caller's `global.set` becomes an operand of the call and the callee's `global.get` a read of
// the parameter, 3 instructions less per label and call. A small accessor called per element pays
// that on every call (bench/external.ts's element loop).
//
// A callee qualifies when
// - no export, table, `ref.func`, start or tail call reaches it (instrument/direct-leaves.ts), in a
//   module whose imports cannot call back into it (taint-dead-call-labels.ts), and
// - every read of an argument global in it runs before anything in it that may write one (a call,
//   or a label write of its own), so it reads what its caller wrote, and
// - at every call of it, each label it reads is written by a statement of the same block just
//   before the call (only label writes between: arguments, control label, call site) whose value is made of locals, constants and
//   `or`s, none of which the call's own operands assign: evaluated as the call's last operand it
//   yields the same label.
// Labels the callee never reads are not passed (taint-dead-call-labels.ts drops their writes).
import binaryen from 'binaryen';
import {
  Block,
  Call,
  Func,
  GlobalGet,
  GlobalSet,
  Id,
  If,
  LocalGet,
  LocalSet,
  Loop,
  childSlots,
  children,
  idOf,
  setFunctionType,
  walkPostOrder,
  type Expr,
} from '../ir.js';
import { indirectRoots, uncountedTarget } from '../direct-leaves.js';
import { factsApply, type CallFacts } from './taint-call-facts.js';
import type { FunctionAnalysis } from '../sites.js';
import { COALESCE_LOCALS_LIMIT } from './taint-optimize.js';
import { directCall, isPureLabel, mayCallBack } from './taint-dead-call-labels.js';

interface CallSite {
  func: number;
  block: Expr;
  /** The call expression. */
  call: Expr;
  /** Per label the callee reads (in `reads` order): the index in `block` of the statement writing it. */
  writes: number[];
}

/** Rewrites qualifying callees and their calls (see the header); returns how many callees changed. */
export function passArgLabelsAsParams(
  module: binaryen.Module,
  functions: FunctionAnalysis[],
  argGlobals: readonly string[],
  callGlobals: ReadonlySet<string>,
  /** Facts of the functions the pass left uninstrumented (taint-call-facts.ts), by function reference. */
  uninstrumented: ReadonlyMap<number, CallFacts> = new Map(),
): number {
  if (mayCallBack(module)) return 0;
  const args = new Set(argGlobals);
  // Uninstrumented code writes no label global: at its calls no label is written, so it reads none
  // and its callees are refused (see collectSites).
  const known = (func: number) => {
    const facts = uninstrumented.get(func);
    return factsApply(facts, callGlobals) ? facts : undefined;
  };
  const indirect = indirectRoots(module);
  // One walk per instrumented function finds both its uncounted targets and its entry reads.
  const entry = new Map<number, Set<string> | null>();
  for (const fn of functions) {
    const body = Func.getBody(fn.func);
    const facts = known(fn.func);
    if (facts) for (const target of facts.uncounted) indirect.add(target);
    else if (body) entry.set(fn.func, entryReads(body, args, indirect));
  }
  const reads = new Map<string, string[]>();
  for (const fn of functions) {
    const name = Func.getName(fn.func);
    const body = Func.getBody(fn.func);
    const facts = known(fn.func);
    if (!body || indirect.has(name) || (facts && !argGlobals.some((g) => facts.globalsRead.has(g)))) continue;
    const read = facts ? entryReads(body, args, new Set()) : entry.get(fn.func)!;
    if (read !== null && read.size > 0)
      reads.set(
        name,
        argGlobals.filter((g) => read.has(g)),
      );
  }
  const sites = new Map<string, CallSite[]>();
  const refused = new Set<string>();
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const func = module.getFunctionByIndex(i);
    const body = Func.getBody(func);
    if (!body) continue;
    const facts = known(func);
    if (facts) {
      for (const callee of facts.callees) if (reads.has(callee)) refused.add(callee);
    } else collectSites(func, body, reads, callGlobals, sites, refused);
  }
  const changed: number[] = [];
  const callers = new Set<number>();
  for (const fn of functions) {
    const read = reads.get(Func.getName(fn.func));
    if (read !== undefined && !refused.has(Func.getName(fn.func))) changed.push(fn.func);
  }
  // Every call first: the passes run below rebuild the blocks the sites point into.
  for (const func of changed) {
    for (const site of sites.get(Func.getName(func)) ?? []) {
      for (const index of site.writes) {
        const write = Block.getChildAt(site.block, index);
        Call.appendOperand(site.call, GlobalSet.getValue(write));
        Block.setChildAt(site.block, index, module.nop());
        callers.add(site.func);
      }
    }
  }
  for (const func of changed) rewriteCallee(module, func, reads.get(Func.getName(func))!);
  for (const func of changed) {
    // The entry copies of the parameters into the label locals go with their locals.
    if (binaryen.getFunctionInfo(func).vars.length <= COALESCE_LOCALS_LIMIT)
      module.runPassesOnFunction(func, ['coalesce-locals', 'vacuum']);
    callers.delete(func);
  }
  for (const caller of callers) module.runPassesOnFunction(caller, ['vacuum']);
  return changed.length;
}

/**
 * The argument globals `body` reads, or null when one is read after something that may write
 * one (a call, a `global.set` of one): evaluation order, with both arms of an `if` starting from
 * its condition and a loop that writes one counted as written before its body. Every function
 * `body` reaches without a counting caller (`uncountedTarget`) goes to `uncounted` on the way.
 */
function entryReads(body: Expr, args: ReadonlySet<string>, uncounted: Set<string>): Set<string> | null {
  const read = new Set<string>();
  let late = false;
  const writes = (expr: Expr) => {
    let found = false;
    walkPostOrder(expr, (e) => {
      const id = idOf(e);
      if (id === Id.Call || id === Id.CallIndirect || (id === Id.GlobalSet && args.has(GlobalSet.getName(e))))
        found = true;
    });
    return found;
  };
  /** Visits `expr` with `written` saying whether a write may have run before it; returns whether one may have run after it. */
  const visit = (expr: Expr, written: boolean): boolean => {
    const id = idOf(expr);
    if (id === Id.RefFunc || id === Id.Call) {
      const target = uncountedTarget(expr);
      if (target !== null) uncounted.add(target);
    }
    if (id === Id.GlobalGet) {
      if (args.has(GlobalGet.getName(expr))) {
        if (written) late = true;
        read.add(GlobalGet.getName(expr));
      }
      return written;
    }
    if (id === Id.If) {
      const afterCondition = visit(If.getCondition(expr), written);
      const yes = visit(If.getIfTrue(expr), afterCondition);
      const ifFalse = If.getIfFalse(expr);
      const no = ifFalse ? visit(ifFalse, afterCondition) : afterCondition;
      return yes || no;
    }
    if (id === Id.Loop) return visit(Loop.getBody(expr), written || writes(expr));
    let now = written;
    for (const child of children(expr)) now = visit(child, now);
    if (id === Id.Call || id === Id.CallIndirect || (id === Id.GlobalSet && args.has(GlobalSet.getName(expr))))
      now = true;
    return now;
  };
  visit(body, false);
  return late ? null : read;
}

/** Finds the calls of the callees in `reads` under `root`; a callee with a call that does not qualify goes to `refused`. */
function collectSites(
  func: number,
  root: Expr,
  reads: ReadonlyMap<string, string[]>,
  callGlobals: ReadonlySet<string>,
  sites: Map<string, CallSite[]>,
  refused: Set<string>,
): void {
  const matched = new Set<Expr>();
  const calls: Expr[] = [];
  walkPostOrder(root, (expr) => {
    const id = idOf(expr);
    if (id === Id.Call) {
      if (reads.has(Call.getTarget(expr))) calls.push(expr);
      return;
    }
    if (id !== Id.Block) return;
    for (let k = 0; k < Block.getNumChildren(expr); k++) {
      const stmt = Block.getChildAt(expr, k);
      const call = directCall(stmt);
      if (call === null) continue;
      const target = Call.getTarget(call);
      const read = reads.get(target);
      if (read === undefined) continue;
      matched.add(call);
      const assigned = assignedLocals(stmt);
      const writes: number[] = [];
      for (const global of read) {
        let found = -1;
        for (let j = k - 1; j >= 0; j--) {
          const before = Block.getChildAt(expr, j);
          if (idOf(before) !== Id.GlobalSet || !callGlobals.has(GlobalSet.getName(before))) break;
          if (GlobalSet.getName(before) === global) {
            found = j;
            break;
          }
        }
        const value = found >= 0 ? GlobalSet.getValue(Block.getChildAt(expr, found)) : null;
        if (value === null || !isPureLabel(value) || readsAny(value, assigned)) {
          refused.add(target);
          break;
        }
        writes.push(found);
      }
      const list = sites.get(target) ?? [];
      list.push({ func, block: expr, call, writes });
      sites.set(target, list);
    }
  });
  // A call in any other position (an operand of another expression) keeps its callee as it is.
  for (const call of calls) if (!matched.has(call)) refused.add(Call.getTarget(call));
}

function assignedLocals(stmt: Expr): Set<number> {
  const out = new Set<number>();
  walkPostOrder(stmt, (e) => {
    if (idOf(e) === Id.LocalSet) out.add(LocalSet.getIndex(e));
  });
  return out;
}

function readsAny(value: Expr, locals: ReadonlySet<number>): boolean {
  let found = false;
  walkPostOrder(value, (e) => {
    if (idOf(e) === Id.LocalGet && locals.has(LocalGet.getIndex(e))) found = true;
  });
  return found;
}

/** Appends one i32 parameter per global in `read` and reads it where the global was read. */
function rewriteCallee(module: binaryen.Module, func: number, read: readonly string[]): void {
  const params = binaryen.expandType(Func.getParams(func));
  const added = read.length;
  const body = Func.getBody(func);
  walkPostOrder(body, (e) => {
    const id = idOf(e);
    if (id === Id.LocalGet && LocalGet.getIndex(e) >= params.length) LocalGet.setIndex(e, LocalGet.getIndex(e) + added);
    else if (id === Id.LocalSet && LocalSet.getIndex(e) >= params.length)
      LocalSet.setIndex(e, LocalSet.getIndex(e) + added);
  });
  const slot = new Map(read.map((global, k) => [global, params.length + k]));
  replaceGlobalReads(module, body, slot, (replacement) => Func.setBody(func, replacement));
  setFunctionType(func, [...params, ...read.map(() => binaryen.i32)], Func.getResults(func));
}

/** Replaces every `global.get` of a global in `slot` under `root` by a read of its local. */
function replaceGlobalReads(
  module: binaryen.Module,
  root: Expr,
  slot: ReadonlyMap<string, number>,
  replaceRoot: (replacement: Expr) => void,
): void {
  const localOf = (e: Expr) => (idOf(e) === Id.GlobalGet ? slot.get(GlobalGet.getName(e)) : undefined);
  const rootLocal = localOf(root);
  if (rootLocal !== undefined) {
    replaceRoot(module.local.get(rootLocal, binaryen.i32));
    return;
  }
  const stack = [root];
  while (stack.length > 0) {
    const expr = stack.pop()!;
    for (const child of childSlots(expr)) {
      const local = localOf(child.expr);
      if (local !== undefined) child.replace(module.local.get(local, binaryen.i32));
      else stack.push(child.expr);
    }
  }
}
