// Straight-line leaf functions only ever called directly: no loop, no call, no branch, no return,
// no trap instruction, so every call runs each of their instructions exactly once; not exported, not
// the start function, not in a table and never named by ref.func, so every call to them is a
// direct call the caller can see. The loop profiler lets their callers count their calls per call
// site (passes/loops.ts) instead of giving them a prologue and an epilogue of their own: an
// accessor of two instructions otherwise costs a context-tree lookup and two counter flushes.
import binaryen from 'binaryen';
import { Call, Func, Id, childSlots, idOf, isCountedInstruction, walkPostOrder, type Expr } from './ir.js';
import { startFunctionName } from './binaryen-api.js';
import type { FunctionAnalysis } from './sites.js';

/** Expressions that neither branch, call, return nor trap unconditionally. */
export const STRAIGHT = new Set<number>([
  Id.Nop,
  Id.Block,
  Id.LocalGet,
  Id.LocalSet,
  Id.GlobalGet,
  Id.GlobalSet,
  Id.Load,
  Id.Store,
  Id.Const,
  Id.Unary,
  Id.Binary,
  Id.Select,
  Id.Drop,
  Id.MemorySize,
  Id.SIMDExtract,
  Id.SIMDReplace,
  Id.SIMDShuffle,
  Id.SIMDTernary,
  Id.SIMDShift,
  Id.SIMDLoad,
  Id.SIMDLoadStoreLane,
]);

/**
 * The instructions one call runs (what the loop profiler counts), or null when `body` is not
 * straight-line. A `return` may end the body (unoptimised code returns explicitly).
 */
function straightLineInstructions(body: Expr): number | null {
  let count = 0;
  const visit = (expr: Expr, last: boolean): boolean => {
    const id = idOf(expr);
    if (!STRAIGHT.has(id) && !(last && id === Id.Return)) return false;
    // A labelled block is only a branch target, and no branch is allowed; it is not counted (as in the walk of loops.ts).
    if (id !== Id.Block && isCountedInstruction(expr)) count++;
    const children = childSlots(expr);
    return children.every((child, i) => visit(child.expr, last && id === Id.Block && i === children.length - 1));
  };
  return visit(body, true) ? count : null;
}

/** Names of functions a table, an export, the start, ref.func or a tail call can reach without a caller that counts the call. */
export function reachableIndirectly(module: binaryen.Module, functions: FunctionAnalysis[]): Set<string> {
  const names = indirectRoots(module);
  for (const fn of functions) {
    const body = Func.getBody(fn.func);
    if (!body) continue;
    walkPostOrder(body, (expr) => {
      const target = uncountedTarget(expr);
      if (target !== null) names.add(target);
    });
  }
  return names;
}

/** The functions exports, the start function and element segments name. */
export function indirectRoots(module: binaryen.Module): Set<string> {
  const names = new Set<string>();
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind === binaryen.ExternalFunction) names.add(info.value);
  }
  const start = startFunctionName(module);
  if (start !== null) names.add(start);
  for (let i = 0; i < module.getNumElementSegments(); i++) {
    for (const name of binaryen.getElementSegmentInfo(module.getElementSegmentByIndex(i)).data) names.add(name);
  }
  return names;
}

/** The function `expr` reaches without a counting caller: a `ref.func`'s, a tail call's target; else null. */
export function uncountedTarget(expr: Expr): string | null {
  const id = idOf(expr);
  if (id === Id.RefFunc) return (binaryen.getExpressionInfo(expr) as { func?: string }).func ?? null;
  // A tail call leaves no caller behind to count it.
  if (id === Id.Call && Call.isReturn(expr)) return Call.getTarget(expr);
  return null;
}

/** Per straight-line leaf reached only by direct calls: the instructions one call runs. */
export function directCallLeaves(
  module: binaryen.Module,
  functions: FunctionAnalysis[],
  skip: Set<string>,
): Map<string, number> {
  const indirect = reachableIndirectly(module, functions);
  const leaves = new Map<string, number>();
  for (const fn of functions) {
    const name = Func.getName(fn.func);
    const body = Func.getBody(fn.func);
    if (!body || skip.has(name) || indirect.has(name) || fn.loopExprs.length > 0 || fn.callExprs.length > 0) continue;
    const instructions = straightLineInstructions(body);
    if (instructions !== null) leaves.set(name, instructions);
  }
  return leaves;
}
