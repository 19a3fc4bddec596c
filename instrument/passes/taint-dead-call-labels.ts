// Label writes a direct call does not need (issue 27). Before a call between defined functions
// the taint pass writes every argument's label, the caller's control label and the call site into
// globals (taint-calls.ts); a callee whose instrumented code never reads one of them leaves that
// write dead: an accessor that uses its pointer argument only as an address never reads that
// argument's label, a function without stores, calls or branches never reads the control label, a
// function that keeps no context node and calls nothing never reads the call site. Once every
// function is instrumented and optimised, such a `global.set` right before a direct call to such a
// callee (earlier statements of the same block, only label writes between) is removed.
//
// Only callees that direct calls alone reach qualify, and only in modules whose imports cannot
// call back into an export (WASI and taintlens' own), so no function entry reads a global an
// elided write would have set: every caller of a callee that reads the global still writes it.
import binaryen from 'binaryen';
import {
  Binary,
  Block,
  Call,
  Drop,
  Func,
  GlobalGet,
  GlobalSet,
  Id,
  LocalSet,
  idOf,
  walkPostOrder,
  type Expr,
} from '../ir.js';
import { indirectRoots, uncountedTarget } from '../direct-leaves.js';
import type { FunctionAnalysis } from '../sites.js';
import { factsApply, type CallFacts } from './taint-call-facts.js';

/** Import modules whose functions never call into the program. */
const NO_CALLBACK_MODULES = new Set(['wasi_snapshot_preview1', 'wasi_unstable', 'taintlens', 'taintlens_mp']);

/**
 * Removes the dead label writes before direct calls; `globals` are the names written
 * before a call (argument labels, control label, call site), `site` the call site's global.
 */
export function dropDeadCallLabels(
  module: binaryen.Module,
  functions: FunctionAnalysis[],
  globals: ReadonlySet<string>,
  site: string,
  /** Facts of the functions the pass left uninstrumented (taint-uncovered.ts), by function reference. */
  uninstrumented: ReadonlyMap<number, CallFacts> = new Map(),
): void {
  if (mayCallBack(module)) return;
  // One walk per function: the globals it reads, what it reaches without a counting call
  // (reachableIndirectly in direct-leaves.ts), and its blocks where a direct call follows a label write.
  const indirect = indirectRoots(module);
  const reads = new Map<string, Set<string>>();
  const candidates: Array<{ func: number; blocks: Expr[] }> = [];
  for (const fn of functions) {
    const name = Func.getName(fn.func);
    const body = Func.getBody(fn.func);
    if (!body) continue;
    const facts = uninstrumented.get(fn.func);
    // Its code writes no label global, so it has no candidate block.
    if (factsApply(facts, globals)) {
      for (const target of facts.uncounted) indirect.add(target);
      reads.set(name, facts.calls ? new Set([...facts.globalsRead, site]) : facts.globalsRead);
      continue;
    }
    const read = new Set<string>();
    const blocks: Expr[] = [];
    walkPostOrder(body, (expr) => {
      const id = idOf(expr);
      const target = uncountedTarget(expr);
      if (target !== null) indirect.add(target);
      if (id === Id.GlobalGet) read.add(GlobalGet.getName(expr));
      // A callee without a node of its own passes the call site on to what it calls.
      else if (id === Id.Call || id === Id.CallIndirect) read.add(site);
      else if (id === Id.Block && writesBeforeCall(expr, globals)) blocks.push(expr);
    });
    reads.set(name, read);
    if (blocks.length > 0) candidates.push({ func: fn.func, blocks });
  }
  for (const name of indirect) reads.delete(name);
  for (const { func, blocks } of candidates) {
    let dropped = false;
    for (const block of blocks) {
      const count = Block.getNumChildren(block);
      for (let k = 0; k < count; k++) {
        const target = directTarget(Block.getChildAt(block, k));
        const read = target === null ? undefined : reads.get(target);
        if (read === undefined) continue;
        for (let j = k - 1; j >= 0; j--) {
          const before = Block.getChildAt(block, j);
          if (idOf(before) !== Id.GlobalSet || !globals.has(GlobalSet.getName(before))) break;
          if (!isPureLabel(GlobalSet.getValue(before))) break;
          if (read.has(GlobalSet.getName(before))) continue;
          Block.setChildAt(block, j, module.nop());
          dropped = true;
        }
      }
    }
    if (dropped) module.runPassesOnFunction(func, ['vacuum']);
  }
}

/** Whether some statement of `block` is a direct call right after a write of one of `globals`. */
function writesBeforeCall(block: Expr, globals: ReadonlySet<string>): boolean {
  const count = Block.getNumChildren(block);
  for (let k = 1; k < count; k++) {
    const before = Block.getChildAt(block, k - 1);
    if (idOf(before) !== Id.GlobalSet || !globals.has(GlobalSet.getName(before))) continue;
    if (directTarget(Block.getChildAt(block, k)) !== null) return true;
  }
  return false;
}

/** Whether an import of `module` may call back into it (one not from a module in NO_CALLBACK_MODULES). */
export function mayCallBack(module: binaryen.Module): boolean {
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (info.module && !NO_CALLBACK_MODULES.has(info.module)) return true;
  }
  return false;
}

/** The direct call of a call statement (`call`, `local.set`/`drop` of one), else null. */
export function directCall(stmt: Expr): Expr | null {
  const id = idOf(stmt);
  const call = id === Id.LocalSet ? LocalSet.getValue(stmt) : id === Id.Drop ? Drop.getValue(stmt) : stmt;
  return idOf(call) === Id.Call && !Call.isReturn(call) ? call : null;
}

function directTarget(stmt: Expr): string | null {
  const call = directCall(stmt);
  return call === null ? null : Call.getTarget(call);
}

/** Locals, constants and their `or`s: a value whose computation can be dropped or moved. */
export function isPureLabel(value: Expr): boolean {
  let pure = true;
  walkPostOrder(value, (expr) => {
    const id = idOf(expr);
    if (id === Id.LocalGet || id === Id.Const) return;
    if (id !== Id.Binary || Binary.getOp(expr) !== binaryen.OrInt32) pure = false;
  });
  return pure;
}
