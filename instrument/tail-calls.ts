// Tail calls (`return_call`, `return_call_indirect`) become a call followed by a return before any
// pass runs. Every pass puts its exit work (leaving a context node, closing a region, passing a
// return label) before a function's returns; a tail call leaves the function without returning,
// so that work would be skipped, and the instrumented module is emitted without the tail-call
// feature. The program computes the same values; only a tail recursion deeper than the stack
// allows would now trap, so the site table records how many calls were lowered.
import binaryen from 'binaryen';
import { Call, CallIndirect, Expression, Func, Id, childSlots, idOf, type Expr } from './ir.js';

export function isTailCall(expr: Expr): boolean {
  const id = idOf(expr);
  return (id === Id.Call && Call.isReturn(expr)) || (id === Id.CallIndirect && CallIndirect.isReturn(expr));
}

/** Lowers every tail call in `funcs`; returns how many there were. */
export function lowerTailCalls(module: binaryen.Module, funcs: Iterable<number>): number {
  let lowered = 0;
  const lower = (call: Expr): Expr => {
    let type: number;
    if (idOf(call) === Id.Call) {
      Call.setReturn(call, false);
      type = binaryen.getFunctionInfo(module.getFunction(Call.getTarget(call))).results;
    } else {
      CallIndirect.setReturn(call, false);
      type = CallIndirect.getResults(call);
    }
    // Binaryen's finalize keeps a call's type; a tail call's is unreachable.
    Expression.setType(call, type);
    lowered++;
    // A call without results cannot be a return's value; one that cannot return needs no return.
    if (type === binaryen.none || type === binaryen.unreachable) return module.block(null, [call, module.return()]);
    return module.return(call);
  };
  for (const func of funcs) {
    const body = Func.getBody(func);
    if (!body) continue;
    if (isTailCall(body)) {
      Func.setBody(func, lower(body));
    }
    const stack: Expr[] = [body];
    while (stack.length > 0) {
      for (const slot of childSlots(stack.pop()!)) {
        if (isTailCall(slot.expr)) slot.replace(lower(slot.expr));
        stack.push(slot.expr);
      }
    }
  }
  return lowered;
}
