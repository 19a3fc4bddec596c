// A function the taint pass leaves uninstrumented because the run does not enter it (the covered
// set, `TaintOptions.functions`, from an entry-bitmap run: src/taint/coverage.ts). Code that never
// runs adds nothing to any label, but the report still lists its loops, branches and library-cost
// calls as not executed, by the ids the full pass gives them: so this walks the flat function in
// the statement walk's order (taint-statements.ts) and appends the same site records, without
// writing any shadow code. Its node size is what the full pass would give it (the report reads
// which functions keep nodes). Its only code is a guard at entry: a sink-table word set to 1 that
// says the run entered it after all, so the caller runs again with it instrumented.
import { Block, Break, Call, Drop, Func, Id, If, LocalSet, Loop, Switch, idOf, type Expr } from '../ir.js';
import type { FunctionAnalysis } from '../sites.js';
import { MEMORY_GROW_FUNCTION } from '../memory-layout.js';
import { planControl } from '../control-plan.js';
import type { TaintBranchSite, TaintLoopSite } from './taint-layout.js';
import { isDead, type ModuleTaint } from './taint-function.js';
import { addBranchRecord, addImportRecord, newSiteSink } from './taint-sink-records.js';
import { hostCallKey, libraryRule } from './taint-calls.js';
import { readCounts } from './taint-control.js';
import { layoutNode } from './taint-sinks.js';
import { FOREIGN_STATEMENTS } from './taint-statements.js';

/** Whether the statement walk could give `fn` a site record: it has loops, branches or host calls. */
export function mayHaveSites(m: ModuleTaint, fn: FunctionAnalysis): boolean {
  if (fn.loopExprs.length > 0 || fn.branchExprs.length > 0) return true;
  return fn.callExprs.some((e) => idOf(e) === Id.Call && hostCallKey(m, Call.getTarget(e)) !== null);
}

/**
 * Appends the site records of flat function `fn` (see the header), adds its entry guard; returns
 * its node size (0: it keeps none).
 */
export function recordUncovered(
  m: ModuleTaint,
  fn: FunctionAnalysis,
  originalLocals: number,
  keepsNode: boolean,
  foreignLocals: ReadonlySet<number>,
): number {
  const body = Func.getBody(fn.func);
  const plan = planControl(body, originalLocals, readCounts(body));
  if (plan.cfg.loops.length !== fn.loopExprs.length)
    throw new Error(
      `internal: the CFG of ${fn.site.name} has ${plan.cfg.loops.length} loops, the site table ${fn.loopExprs.length}`,
    );
  const loops: TaintLoopSite[] = [];
  let callIndex = 0;
  const loopSiteOf = (expr: Expr): string | null => {
    const k = plan.loopOf(expr);
    return k >= 0 ? (fn.site.loops[k] ?? null) : null;
  };
  const conditional = (s: Expr, kind: TaintBranchSite['kind'], condition: Expr) => {
    const b = plan.branches.get(s);
    if (!b || isDead(condition)) return;
    if (b.exits.length > 0) for (const k of b.exits) loops[k]!.exitConditions++;
    else addBranchRecord(m, fn, loopSiteOf(s), kind, s);
  };
  const call = (expr: Expr) => {
    const target = idOf(expr) === Id.Call ? Call.getTarget(expr) : null;
    if (target === MEMORY_GROW_FUNCTION) return;
    const siteCall = fn.site.calls[callIndex++] ?? null;
    if (isDead(expr) || target === null) return;
    const key = hostCallKey(m, target);
    const cost = key === null ? undefined : libraryRule(m, key, target)?.cost;
    if (key !== null && cost) addImportRecord(m, fn, loopSiteOf(expr), key, cost.params ?? [], siteCall);
  };
  const isCall = (expr: Expr) => idOf(expr) === Id.Call || idOf(expr) === Id.CallIndirect;
  const visit = (s: Expr): void => {
    const id = idOf(s);
    if (id === Id.Block) {
      const count = Block.getNumChildren(s);
      for (let i = 0; i < count; i++) visit(Block.getChildAt(s, i));
    } else if (id === Id.Loop) {
      const siteId = fn.site.loops[loops.length];
      if (siteId === undefined)
        throw new Error(`internal: taint pass found more loops in ${fn.site.name} than the site table`);
      const site: TaintLoopSite = { id: siteId, function: fn.site.name, record: 0, exitLabels: 0, exitConditions: 0 };
      loops.push(site);
      m.layout.loops.push(site);
      visit(Loop.getBody(s));
    } else if (id === Id.If) {
      conditional(s, 'if', If.getCondition(s));
      visit(If.getIfTrue(s));
      const otherwise = If.getIfFalse(s);
      if (otherwise) visit(otherwise);
    } else if (id === Id.Break) {
      const condition = Break.getCondition(s);
      if (condition) conditional(s, 'br_if', condition);
    } else if (id === Id.Switch) {
      conditional(s, 'br_table', Switch.getCondition(s));
    } else if (id === Id.LocalSet) {
      const value = LocalSet.getValue(s);
      if (!foreignLocals.has(LocalSet.getIndex(s)) && !LocalSet.isTee(s) && isCall(value) && !m.foreign(value))
        call(value);
    } else if (id === Id.GlobalSet || (m.foreign(s) && FOREIGN_STATEMENTS.has(id))) {
      return;
    } else if (isCall(s)) {
      call(s);
    } else if (id === Id.Drop && isCall(Drop.getValue(s)) && !m.foreign(Drop.getValue(s))) {
      call(Drop.getValue(s));
    }
  };
  visit(body);
  if (loops.length !== fn.loopExprs.length)
    throw new Error(
      `internal: taint pass found ${loops.length} loops in ${fn.site.name}, the site table ${fn.loopExprs.length}`,
    );
  addGuard(m, fn);
  if (!keepsNode) return 0;
  return layoutNode(fn.callExprs.length, loops);
}

/** The entry guard: a sink-table word the function sets to 1 when it runs (`TaintLayout.guards`). */
export function addGuard(m: ModuleTaint, fn: FunctionAnalysis): void {
  const { module } = m;
  const sink = newSiteSink(m);
  (m.layout.guards ??= []).push({ function: fn.site.name, sink });
  const mark = module.i32.store(0, 4, module.i32.const(sink), module.i32.const(1));
  Func.setBody(fn.func, module.block(null, [mark, Func.getBody(fn.func)], Func.getResults(fn.func)));
}
