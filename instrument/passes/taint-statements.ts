// The taint pass's walk over one flat function: each statement followed by its shadow code, and
// each CFG node's start followed by the control-dependence code of the branches that end there.
// Structured statements (block, loop, if, br/br_if, br_table, return) are rebuilt here; the
// shadow code of the others comes from value flow (taint-values.ts), memory (taint-memory.ts) and
// calls (taint-calls.ts).
import binaryen from 'binaryen';
import {
  Block,
  Break,
  Drop,
  Expression,
  Id,
  If,
  LocalSet,
  Loop,
  Return,
  Switch,
  addVar,
  i64Const,
  idOf,
  typeOf,
  type Expr,
} from '../ir.js';
import type { TaintLoopSite } from './taint-sinks.js';
import { EXIT_LABEL, isDead, operandLabel, orZero, type FunctionTaint } from './taint-function.js';
import { backEdges, conditional, nodeStart } from './taint-control.js';
import { globalSetStmt, localSetStmt } from './taint-values.js';
import { memoryStmt, MEMORY_STATEMENTS } from './taint-memory.js';
import { callStmt } from './taint-calls.js';

/** Statements another pass may have added: its stores and helper calls are left as they are. */
export const FOREIGN_STATEMENTS = new Set<number>([
  Id.Store,
  Id.SIMDLoadStoreLane,
  Id.Call,
  Id.CallIndirect,
  Id.MemoryCopy,
  Id.MemoryFill,
  Id.MemoryInit,
]);

function stmt(c: FunctionTaint, s: Expr): Expr[] {
  const id = idOf(s);
  if (id === Id.Block) return blockStmt(c, s);
  if (id === Id.Loop) return loopStmt(c, s);
  if (id === Id.If) return ifStmt(c, s);
  if (id === Id.Break) return breakStmt(c, s);
  if (id === Id.Switch) return switchStmt(c, s);
  if (id === Id.Return) return returnStmt(c, s);
  if (id === Id.LocalSet && c.foreignLocals.has(LocalSet.getIndex(s))) return [s];
  if (id === Id.LocalSet) return localSetStmt(c, s);
  if (id === Id.GlobalSet) return globalSetStmt(c, s);
  if (c.m.foreign(s) && FOREIGN_STATEMENTS.has(id)) return [s];
  if (id === Id.Drop && c.m.foreign(Drop.getValue(s)) && FOREIGN_STATEMENTS.has(idOf(Drop.getValue(s)))) return [s];
  if (id === Id.Call || id === Id.CallIndirect) return callStmt(c, s, s);
  if (id === Id.Drop) {
    const value = Drop.getValue(s);
    const vid = idOf(value);
    return vid === Id.Call || vid === Id.CallIndirect ? callStmt(c, s, value) : [s];
  }
  if (MEMORY_STATEMENTS.has(id)) return memoryStmt(c, s);
  return [s];
}

/** A statement followed by the code of the CFG node starting right after it. */
export function stmtThen(c: FunctionTaint, s: Expr): Expr[] {
  return [...stmt(c, s), ...nodeStart(c, c.plan.cfg.after.get(s))];
}

function blockStmt(c: FunctionTaint, s: Expr): Expr[] {
  const { module } = c.m;
  const name = Block.getName(s);
  const children: Expr[] = [];
  const count = Block.getNumChildren(s);
  for (let i = 0; i < count; i++) children.push(...stmtThen(c, Block.getChildAt(s, i)));
  const type = typeOf(s) === binaryen.unreachable ? binaryen.none : typeOf(s);
  if (type === binaryen.none && name) return [namedBlock(c, name, children)];
  return [module.block(name, children, type === binaryen.none ? binaryen.none : binaryen.auto)];
}

/**
 * `module.block(name, children, none)` without its search: Binaryen types a named block with an
 * unreachable child by walking all of it for a branch to its label (quadratic in nested blocks,
 * 5 s of yosys's taint module). Labels are unique in a function and a branch sits inside the block
 * it targets, so the branches this walk has already passed on (breakStmt, switchStmt, returnStmt)
 * answer that: the same type, set on the unnamed block.
 */
export function namedBlock(c: FunctionTaint, name: string, children: Expr[]): Expr {
  const block = c.m.module.block(null, children, binaryen.none);
  Block.setName(block, name);
  if (typeOf(block) === binaryen.unreachable && c.branchTargets.has(name)) Expression.setType(block, binaryen.none);
  return block;
}

function loopStmt(c: FunctionTaint, s: Expr): Expr[] {
  const { module } = c.m;
  const i64 = binaryen.i64;
  const k = c.loopIndex++;
  const siteId = c.fn.site.loops[k];
  if (siteId === undefined)
    throw new Error(`internal: taint pass found more loops in ${c.fn.site.name} than the site table`);
  const site: TaintLoopSite = { id: siteId, function: c.fn.site.name, record: 0, exitLabels: 0, exitConditions: 0 };
  c.m.layout.loops.push(site);
  const locals = {
    exit: addVar(c.func, binaryen.i32),
    headers: addVar(c.func, i64),
    entries: addVar(c.func, i64),
    site,
  };
  c.loopLocals[k] = locals;
  c.sinks.addLoop(k, site, locals.headers, locals.entries);
  const name = Loop.getName(s);
  const header: Expr[] = [
    module.local.set(locals.headers, module.i64.add(module.local.get(locals.headers, i64), i64Const(module, 1))),
    ...nodeStart(c, c.plan.cfg.nodeOf.get(Loop.getBody(s))),
  ];
  const body = stmtThen(c, Loop.getBody(s));
  const type = typeOf(s);
  const rebuilt = module.loop(
    name,
    module.block(null, [...header, ...body], type === binaryen.unreachable ? binaryen.none : type),
  );
  // Entries, with header runs, give source-level iterations (a top-tested loop runs its header once more per entry).
  const entered = module.local.set(
    locals.entries,
    module.i64.add(module.local.get(locals.entries, i64), i64Const(module, 1)),
  );
  return [entered, rebuilt];
}

function ifStmt(c: FunctionTaint, s: Expr): Expr[] {
  const { module } = c.m;
  const condition = If.getCondition(s);
  const pre = conditional(c, s, 'if', condition) ?? [];
  const newArms: Array<Expr | null> = [];
  for (const arm of [If.getIfTrue(s), If.getIfFalse(s)]) {
    if (!arm) {
      newArms.push(null);
      continue;
    }
    const body = [...nodeStart(c, c.plan.cfg.nodeOf.get(arm)), ...stmtThen(c, arm)];
    newArms.push(module.block(null, body, binaryen.none));
  }
  return [...pre, module.if(condition, newArms[0]!, newArms[1] ?? undefined)];
}

function breakStmt(c: FunctionTaint, s: Expr): Expr[] {
  c.branchTargets.add(Break.getName(s));
  const condition = Break.getCondition(s);
  if (!condition) return [...backEdges(c, s), s];
  const pre = conditional(c, s, 'br_if', condition);
  if (pre === null) return [s];
  return [...pre, ...backEdges(c, s), s];
}

function switchStmt(c: FunctionTaint, s: Expr): Expr[] {
  for (const name of Switch.getNames(s)) c.branchTargets.add(name);
  c.branchTargets.add(Switch.getDefaultName(s));
  const pre = conditional(c, s, 'br_table', Switch.getCondition(s));
  if (pre === null) return [s];
  return [...pre, ...backEdges(c, s), s];
}

function returnStmt(c: FunctionTaint, s: Expr): Expr[] {
  const { module } = c.m;
  const value = Return.getValue(s);
  const out: Expr[] = [];
  if (value && c.result !== null) {
    if (isDead(value)) return [s];
    out.push(module.local.set(c.result.value, value));
    out.push(module.local.set(c.result.label, orZero(c, operandLabel(c, value))));
  }
  out.push(module.br(EXIT_LABEL));
  c.branchTargets.add(EXIT_LABEL);
  return out;
}
