// Facts about a function the taint pass left uninstrumented (a function the run does not enter,
// taint-uncovered.ts), gathered in one walk: the module-wide steps after the rewrite
// (taint-dead-call-labels.ts, taint-call-params.ts) read them instead of walking its code again
// each. Their code is the program's own, so it reads and writes no label global.
import { Call, GlobalGet, GlobalSet, Id, idOf, walkPostOrder, type Expr } from '../ir.js';
import { uncountedTarget } from '../direct-leaves.js';

/** What the steps after the rewrite need of an uninstrumented function. */
export interface CallFacts {
  globalsRead: Set<string>;
  globalsWritten: Set<string>;
  /** It holds a call or call_indirect. */
  calls: boolean;
  /** Targets of its direct calls, tail calls included. */
  callees: Set<string>;
  /** Functions it reaches without a counting caller (direct-leaves.ts' `uncountedTarget`). */
  uncounted: string[];
}

export function callFacts(body: Expr): CallFacts {
  const facts: CallFacts = {
    globalsRead: new Set(),
    globalsWritten: new Set(),
    calls: false,
    callees: new Set(),
    uncounted: [],
  };
  walkPostOrder(body, (e) => {
    const id = idOf(e);
    if (id === Id.GlobalGet) facts.globalsRead.add(GlobalGet.getName(e));
    else if (id === Id.GlobalSet) facts.globalsWritten.add(GlobalSet.getName(e));
    else if (id === Id.Call || id === Id.CallIndirect) {
      facts.calls = true;
      if (id === Id.Call) facts.callees.add(Call.getTarget(e));
    }
    const target = uncountedTarget(e);
    if (target !== null) facts.uncounted.push(target);
  });
  return facts;
}

/** Whether the function's facts stand for its walk in a step about label globals `globals`: it writes none of them. */
export function factsApply(facts: CallFacts | undefined, globals: ReadonlySet<string>): facts is CallFacts {
  if (!facts) return false;
  for (const g of facts.globalsWritten) if (globals.has(g)) return false;
  return true;
}
