// Binaryen's function optimizer run on each function the taint pass has rewritten: it removes the
// copies flattening introduced and the label computations nobody reads. Which passes run depends
// on the function's locals, since coalesce-locals, the pass that pays most, costs most.
//
// Only passes that neither fold values nor move code: Binaryen treats all traps as one and NaN bits
// as free, so precompute / optimize-instructions / simplify-locals could change which trap fires
// or a NaN's sign in the program's own code (found by differential fuzzing). The engine's
// optimizing tier removes the copies flattening leaves behind anyway.
// coalesce-locals drops a set nobody reads; vacuum then drops its computation, which can leave the
// set before it unread: three rounds remove the label chains of address arithmetic (pointer labels
// are never read), 10% of the code of a typical kernel loop.
import binaryen from 'binaryen';
import { Drop, Func, Id, childSlots, children, idOf, type Expr } from '../ir.js';
import type { ShadowMemory } from './shadow-memory.js';

// Pruned greedily (drop one pass, keep the drop if bench/external.ts's 8 kernels still come out
// byte-identical) from vacuum, reorder-locals, remove-unused-brs, merge-blocks, coalesce-locals,
// vacuum, merge-blocks, remove-unused-brs, remove-unused-names, vacuum, coalesce-locals, vacuum,
// coalesce-locals, vacuum: the five passes it dropped changed nothing on those kernels (nextpnr's
// instrumented module grew by 0.02%, its optimizer phase took 24 instead of 27 s of CPU).
const OPTIMIZE_PASSES = [
  'vacuum',
  'reorder-locals',
  'merge-blocks',
  'coalesce-locals',
  'vacuum',
  'remove-unused-brs',
  'coalesce-locals',
  'vacuum',
  'coalesce-locals',
];

const CLEANUP_PASSES = ['vacuum', 'coalesce-locals', 'vacuum'];

// coalesce-locals is superlinear in the locals of a flattened function (its interference graph):
// measured on one instrumented function, 2,534 locals 2.2 s for one round, 10k locals 345 s for
// the list above. Above this many locals the function keeps its dead label copies (slower
// instrumented code, same results) and gets only the linear passes. The limit stays where it is:
// at 500 (which would halve nextpnr's coalesce-locals time) the -O0 kernels of bench/external.ts
// execute 5.1-5.4 instructions per original one instead of 2.6-2.9 (their loops' functions have
// 500-2,000 locals after flattening); the first round is most of the cost, so fewer rounds save
// little.
export const COALESCE_LOCALS_LIMIT = 2000;
// merge-blocks is left out: on a flattened function with over 10,000 locals it took 1-4 s each
// (nextpnr: 13-30 s for its 80 functions over 2,000 locals, more than the other passes together),
// and what it saves is mostly block nesting, which costs nothing at run time.
const BOUNDED_PASSES = ['vacuum', 'reorder-locals', 'remove-unused-brs', 'vacuum'];

/** Optimizes one instrumented function in place. */
export function optimizeTainted(module: binaryen.Module, func: number, shadow: ShadowMemory): void {
  const big = binaryen.getFunctionInfo(func).vars.length > COALESCE_LOCALS_LIMIT;
  module.runPassesOnFunction(func, big ? BOUNDED_PASSES : OPTIMIZE_PASSES);
  if (dropUnreadLabelLoads(module, Func.getBody(func), shadow))
    module.runPassesOnFunction(func, big ? ['vacuum'] : CLEANUP_PASSES);
}

/** Replaces `drop(label load)` (a label only a pointer had) by nop; true if any was found. */
function dropUnreadLabelLoads(module: binaryen.Module, root: Expr, shadow: ShadowMemory): boolean {
  let found = false;
  const stack = [root];
  const unread = (expr: Expr) => idOf(expr) === Id.Drop && shadow.isLabelLoad(Drop.getValue(expr));
  while (stack.length > 0) {
    const expr = stack.pop()!;
    const operands = children(expr);
    // Slots (objects with a setter) only for the few expressions with such an operand.
    if (!operands.some(unread)) {
      for (const operand of operands) stack.push(operand);
      continue;
    }
    for (const slot of childSlots(expr)) {
      if (unread(slot.expr)) {
        slot.replace(module.nop());
        found = true;
      } else {
        stack.push(slot.expr);
      }
    }
  }
  return found;
}
