// A function the taint pass leaves uninstrumented because the run does not enter it (the covered
// set, `TaintOptions.functions`, from an entry-work run: src/taint/coverage.ts). Code that never
// runs adds nothing to any label, but the report still lists its loops, branches and library-cost
// calls as not executed, by the ids the full pass gives them: so this finds them in the statement
// walk's order (taint-statements.ts) over the control plan of the flat function and appends the
// same site records, without writing any shadow code. The original code gives the same records
// (flattening keeps loops, branches and calls in evaluation order), so it is read as it is and
// stays as it is, unless it holds something flattening rewrites further (then it is flattened and
// walked). Its node size is what the full pass would give it (the report reads which functions
// keep nodes). Its only code is a guard at entry: a sink-table word set to 1 that says the run
// entered it after all, so the caller runs again with it instrumented.
import {
  Block,
  Break,
  Call,
  Drop,
  Func,
  Id,
  If,
  LocalSet,
  Loop,
  Switch,
  children,
  idOf,
  walkPostOrder,
  type Expr,
} from '../ir.js';
import type { FunctionAnalysis } from '../sites.js';
import { MEMORY_GROW_FUNCTION } from '../memory-layout.js';
import { planControl } from '../control-plan.js';
import { buildCfg, exitedLoops, type Cfg } from '../cfg.js';
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
 * Appends the site records of `fn` (see the header), adds its entry guard; returns its node size
 * (0: it keeps none). The records come from the original function where it has nothing that
 * flattening would rewrite into other statements (see `recordsOfOriginal`); else it is flattened
 * and walked.
 */
export function recordUncovered(
  m: ModuleTaint,
  fn: FunctionAnalysis,
  keepsNode: boolean,
  foreignLocals: ReadonlySet<number>,
): number {
  let records = recordsOfOriginal(m, fn, foreignLocals);
  if (records === null) {
    const originalLocals = Func.getNumLocals(fn.func);
    m.module.runPassesOnFunction(fn.func, ['flatten']);
    records = recordsOfFlat(m, fn, originalLocals, foreignLocals);
  }
  const loops = commit(m, fn, records);
  addGuard(m, fn);
  if (!keepsNode) return 0;
  return layoutNode(fn.callExprs.length, loops);
}

/** A site record of an uncovered function, in the order the statement walk would add it. */
type PendingRecord =
  | { kind: 'loop'; site: TaintLoopSite }
  | { kind: 'branch'; loop: string | null; branch: TaintBranchSite['kind']; expr: Expr }
  | { kind: 'import'; loop: string | null; key: string; params: string[]; call: string | null };

/** Appends the records to the layout in walk order (sink-table words included); returns the loops. */
function commit(m: ModuleTaint, fn: FunctionAnalysis, records: PendingRecord[]): TaintLoopSite[] {
  const loops: TaintLoopSite[] = [];
  for (const r of records) {
    if (r.kind === 'loop') {
      loops.push(r.site);
      m.layout.loops.push(r.site);
    } else if (r.kind === 'branch') addBranchRecord(m, fn, r.loop, r.branch, r.expr);
    else addImportRecord(m, fn, r.loop, r.key, r.params, r.call);
  }
  return loops;
}

/** What one statement walk needs to turn control facts into records. */
class RecordWalk {
  readonly records: PendingRecord[] = [];
  readonly loops: TaintLoopSite[] = [];
  private callIndex = 0;

  constructor(
    private readonly m: ModuleTaint,
    private readonly fn: FunctionAnalysis,
    private readonly cfg: Cfg,
    private readonly exitsOf: (branch: Expr) => readonly number[] | undefined,
  ) {}

  loop(): void {
    const siteId = this.fn.site.loops[this.loops.length];
    if (siteId === undefined)
      throw new Error(`internal: taint pass found more loops in ${this.fn.site.name} than the site table`);
    const site: TaintLoopSite = {
      id: siteId,
      function: this.fn.site.name,
      record: 0,
      exitLabels: 0,
      exitConditions: 0,
    };
    this.loops.push(site);
    this.records.push({ kind: 'loop', site });
  }

  /** A conditional branch: an exit condition of the loops it leaves, else a branch record. */
  conditional(s: Expr, kind: TaintBranchSite['kind'], condition: Expr): void {
    const exits = this.exitsOf(s);
    if (!exits || isDead(condition)) return;
    if (exits.length > 0) for (const k of exits) this.loops[k]!.exitConditions++;
    else this.records.push({ kind: 'branch', loop: this.loopSiteOf(s), branch: kind, expr: s });
  }

  /** A call of the program (its site-table call index advances). */
  call(expr: Expr): void {
    const target = idOf(expr) === Id.Call ? Call.getTarget(expr) : null;
    if (target === MEMORY_GROW_FUNCTION) return;
    const siteCall = this.fn.site.calls[this.callIndex++] ?? null;
    if (isDead(expr) || target === null) return;
    const key = hostCallKey(this.m, target);
    const cost = key === null ? undefined : libraryRule(this.m, key, target)?.cost;
    if (key !== null && cost)
      this.records.push({
        kind: 'import',
        loop: this.loopSiteOf(expr),
        key,
        params: cost.params ?? [],
        call: siteCall,
      });
  }

  /** Throws unless the walk met every loop of the site table. */
  finish(): PendingRecord[] {
    if (this.loops.length !== this.fn.loopExprs.length)
      throw new Error(
        `internal: taint pass found ${this.loops.length} loops in ${this.fn.site.name}, the site table ${this.fn.loopExprs.length}`,
      );
    return this.records;
  }

  private loopSiteOf(expr: Expr): string | null {
    const node = this.cfg.nodeOf.get(expr);
    const k = node === undefined ? -1 : this.cfg.innermost[node]!;
    return k >= 0 ? (this.fn.site.loops[k] ?? null) : null;
  }
}

const isCall = (expr: Expr) => idOf(expr) === Id.Call || idOf(expr) === Id.CallIndirect;

/**
 * The records of the flat function `fn`, walked in the statement walk's order (taint-statements.ts)
 * over its control plan.
 */
function recordsOfFlat(
  m: ModuleTaint,
  fn: FunctionAnalysis,
  originalLocals: number,
  foreignLocals: ReadonlySet<number>,
): PendingRecord[] {
  const body = Func.getBody(fn.func);
  const plan = planControl(body, originalLocals, readCounts(body));
  checkLoops(fn, plan.cfg);
  const walk = new RecordWalk(m, fn, plan.cfg, (s) => plan.branches.get(s)?.exits);
  const visit = (s: Expr): void => {
    const id = idOf(s);
    if (id === Id.Block) {
      const count = Block.getNumChildren(s);
      for (let i = 0; i < count; i++) visit(Block.getChildAt(s, i));
    } else if (id === Id.Loop) {
      walk.loop();
      visit(Loop.getBody(s));
    } else if (id === Id.If) {
      walk.conditional(s, 'if', If.getCondition(s));
      visit(If.getIfTrue(s));
      const otherwise = If.getIfFalse(s);
      if (otherwise) visit(otherwise);
    } else if (id === Id.Break) {
      const condition = Break.getCondition(s);
      if (condition) walk.conditional(s, 'br_if', condition);
    } else if (id === Id.Switch) {
      walk.conditional(s, 'br_table', Switch.getCondition(s));
    } else if (id === Id.LocalSet) {
      const value = LocalSet.getValue(s);
      if (!foreignLocals.has(LocalSet.getIndex(s)) && !LocalSet.isTee(s) && isCall(value) && !m.foreign(value))
        walk.call(value);
    } else if (id === Id.GlobalSet || (m.foreign(s) && FOREIGN_STATEMENTS.has(id))) {
      return;
    } else if (isCall(s)) {
      walk.call(s);
    } else if (id === Id.Drop && isCall(Drop.getValue(s)) && !m.foreign(Drop.getValue(s))) {
      walk.call(Drop.getValue(s));
    }
  };
  visit(body);
  return walk.finish();
}

/**
 * The records of `fn` read off its original code, or null where flattening could change them.
 * Flattening moves every operand that holds control flow or a call in front of its statement, in
 * evaluation order, and keeps the branches, loops and calls themselves: so a walk in evaluation
 * order over the CFG of the original code meets the same loops, branches and calls in the same
 * order, in the same CFG nodes. It gives up (null) where flattening rewrites more than that: an
 * operand of unreachable type (flattening replaces the expression by its operands' code), a
 * program call whose result goes to another pass's local, a call another pass added, and
 * expression kinds the pass does not know (exception handling).
 */
function recordsOfOriginal(
  m: ModuleTaint,
  fn: FunctionAnalysis,
  foreignLocals: ReadonlySet<number>,
): PendingRecord[] | null {
  const body = Func.getBody(fn.func);
  if (!flattensInPlace(m, body, foreignLocals)) return null;
  const cfg = buildCfg(body);
  checkLoops(fn, cfg);
  const exits = new Map<Expr, number[]>();
  for (const node of cfg.nodes) if (node.branch && cfg.live[node.id]) exits.set(node.branch, exitedLoops(cfg, node.id));
  const walk = new RecordWalk(m, fn, cfg, (s) => exits.get(s));
  const visit = (e: Expr): void => {
    const id = idOf(e);
    if (id === Id.Loop) {
      walk.loop();
      visit(Loop.getBody(e));
    } else if (id === Id.If) {
      visit(If.getCondition(e));
      walk.conditional(e, 'if', If.getCondition(e));
      visit(If.getIfTrue(e));
      const otherwise = If.getIfFalse(e);
      if (otherwise) visit(otherwise);
    } else {
      for (const child of children(e)) visit(child);
      if (id === Id.Break) {
        const condition = Break.getCondition(e);
        if (condition) walk.conditional(e, 'br_if', condition);
      } else if (id === Id.Switch) walk.conditional(e, 'br_table', Switch.getCondition(e));
      else if (isCall(e)) walk.call(e);
    }
  };
  visit(body);
  return walk.finish();
}

/** The expression kinds the taint pass knows (others, such as exception handling: the flat walk decides). */
const KNOWN = new Set<number>(Object.values(Id));

/** Whether flattening `body` keeps its loops, branches and calls as they are (see `recordsOfOriginal`). */
function flattensInPlace(m: ModuleTaint, body: Expr, foreignLocals: ReadonlySet<number>): boolean {
  let ok = true;
  walkPostOrder(body, (e) => {
    if (!ok) return;
    const id = idOf(e);
    if (!KNOWN.has(id) || (isCall(e) && m.foreign(e))) ok = false;
    else if (id === Id.LocalSet && foreignLocals.has(LocalSet.getIndex(e)) && isCall(LocalSet.getValue(e))) ok = false;
    else if (id === Id.If) ok = !isDead(If.getCondition(e));
    else if (id !== Id.Block && id !== Id.Loop) ok = children(e).every((child) => !isDead(child));
  });
  return ok;
}

function checkLoops(fn: FunctionAnalysis, cfg: Cfg): void {
  if (cfg.loops.length !== fn.loopExprs.length)
    throw new Error(
      `internal: the CFG of ${fn.site.name} has ${cfg.loops.length} loops, the site table ${fn.loopExprs.length}`,
    );
}

/** The entry guard: a sink-table word the function sets to 1 when it runs (`TaintLayout.guards`). */
export function addGuard(m: ModuleTaint, fn: FunctionAnalysis): void {
  const { module } = m;
  const sink = newSiteSink(m);
  (m.layout.guards ??= []).push({ function: fn.site.name, sink });
  const mark = module.i32.store(0, 4, module.i32.const(sink), module.i32.const(1));
  Func.setBody(fn.func, module.block(null, [mark, Func.getBody(fn.func)], Func.getResults(fn.func)));
}
