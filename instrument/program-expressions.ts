// The program's own memory accesses and calls, recorded before any pass runs. When passes are
// composed (`--mode loops,taint`), the taint pass runs last and sees the other passes' code too:
// their counters and context-tree accesses address our reserved regions, not program memory, and
// their helper calls are no call sites of the program. The taint pass shadows and counts only the
// expressions in this set (Binaryen's flatten keeps expression identities).
import { Id, idOf, walkPostOrder, Func, type Expr } from './ir.js';
import type { ModuleAnalysis } from './sites.js';

const TRACKED = new Set<number>([
  Id.Load,
  Id.Store,
  Id.Call,
  Id.CallIndirect,
  Id.SIMDLoad,
  Id.SIMDLoadStoreLane,
  Id.MemoryCopy,
  Id.MemoryFill,
  Id.MemoryInit,
]);

/** Per function (Binaryen function ref): locals a pass added that hold only its own data (counters, node addresses). */
export type InstrumentationLocals = Map<number, Set<number>>;

export function programExpressions(analysis: ModuleAnalysis): Set<Expr> {
  const found = new Set<Expr>();
  for (const fn of analysis.functions) {
    const body = Func.getBody(fn.func);
    if (body)
      walkPostOrder(body, (expr) => {
        if (TRACKED.has(idOf(expr))) found.add(expr);
      });
  }
  return found;
}
