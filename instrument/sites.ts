// The static site table: every function, loop and call site of a module with a stable id, found by
// one walk over Binaryen IR. Loops in Wasm are structured, so a `loop` is a natural-loop header and a
// branch to its label is a back-edge: no binary heuristics needed. Runtime results refer to these ids.
import binaryen from 'binaryen';
import {
  Break,
  Call,
  Func,
  Id,
  Loop,
  Block,
  If,
  branchTargets,
  children,
  idOf,
  isCountedInstruction,
  labelOf,
  type Expr,
} from './ir.js';
import { definedFunctions } from './memory-layout.js';
import { buildCfg, EFFECTS, isTopTestedLoop } from './cfg.js';
import { TripCounter, indirectCallCandidates } from './static-trips.js';
import type { SourceLocation, LocationOrigin } from './debug/locations.js';

export interface FunctionSite {
  id: string;
  /** Position among the module's defined functions; the runtime's function number. */
  index: number;
  name: string;
  instructions: number;
  loops: string[];
  calls: string[];
  /** First source line of the body, from debug info (instrument/debug/). */
  location?: SourceLocation | null;
  /** Code of wasi-libc, libc++ or the AssemblyScript runtime rather than of the program. */
  library?: boolean;
}

export interface LoopSite {
  id: string;
  function: string;
  label: string;
  parent: string | null;
  /** 1 for a loop at the top level of its function. */
  depth: number;
  /** Branch instructions that jump back to the header (br, br_if, br_table entries). */
  backEdges: number;
  /** Exits tested before the body runs (`while`): its header runs once more per entry than its body. */
  topTested: boolean;
  calls: string[];
  /** Instructions inside the loop, nested loops included. */
  instructions: number;
  /** Source-level iterations per entry when proven constant on the original module (static-trips.ts), else null. */
  staticTrips?: number | null;
  /** The loop's `for`/`while` line, from debug info. */
  location?: SourceLocation | null;
}

export type CallKind = 'direct' | 'indirect' | 'import';

export interface CallSite {
  id: string;
  function: string;
  loop: string | null;
  kind: CallKind;
  target: string | null;
  /** Indirect calls: the table's functions whose signature matches, or null when the table can change at run time. */
  candidates?: string[] | null;
  location?: SourceLocation | null;
}

export interface SiteTable {
  functions: FunctionSite[];
  loops: LoopSite[];
  calls: CallSite[];
  /** Where source locations came from, or why there are none. */
  sources?: { origin: LocationOrigin | null; note: string };
  /** Defined functions with no name at all (no name section entry, no export): shown as funcN. */
  unnamed?: number;
}

/** Per-function IR handles, in the same order as the table (for passes). */
export interface FunctionAnalysis {
  site: FunctionSite;
  func: number;
  loopExprs: Expr[];
  callExprs: Expr[];
  /** Conditional branches (if, br_if, br_table) in binary order: the k-th is the body's k-th such opcode. */
  branchExprs: Expr[];
  /** Source line of each of `branchExprs` (attachSourceLocations), when debug info matched them. */
  branchLocations?: Array<SourceLocation | null>;
}

export interface ModuleAnalysis {
  table: SiteTable;
  functions: FunctionAnalysis[];
}

export function analyzeModule(module: binaryen.Module): ModuleAnalysis {
  const table: SiteTable = { functions: [], loops: [], calls: [] };
  const functions: FunctionAnalysis[] = [];
  const imported = new Set<string>();
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (info.module) imported.add(info.name);
  }
  const exportNames = new Map<string, string>();
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind === binaryen.ExternalFunction && !exportNames.has(info.value)) exportNames.set(info.value, info.name);
  }
  // Without a name section Binaryen names functions by number; an export name reads better.
  const displayName = (internal: string) =>
    /^\d+$/.test(internal) ? (exportNames.get(internal) ?? `func${internal}`) : internal;
  definedFunctions(module).forEach((func, index) => {
    const name = displayName(Func.getName(func));
    if (/^\d+$/.test(Func.getName(func)) && !exportNames.has(Func.getName(func)))
      table.unnamed = (table.unnamed ?? 0) + 1;
    const site: FunctionSite = { id: `F${index}`, index, name, instructions: 0, loops: [], calls: [] };
    const analysis: FunctionAnalysis = { site, func, loopExprs: [], callExprs: [], branchExprs: [] };
    const body = Func.getBody(func);
    if (body) walkFunction(body, site, analysis, table, imported, displayName);
    table.functions.push(site);
    functions.push(analysis);
  });
  addStaticFacts(module, table, functions, displayName);
  return { table, functions };
}

/** Constant trip counts of loops and candidate callees of indirect calls (static-trips.ts). */
function addStaticFacts(
  module: binaryen.Module,
  table: SiteTable,
  functions: FunctionAnalysis[],
  displayName: (n: string) => string,
): void {
  const loopById = new Map(table.loops.map((l) => [l.id, l]));
  const callById = new Map(table.calls.map((c) => [c.id, c]));
  const counter = new TripCounter(module);
  const indirect: Array<{ site: CallSite; expr: Expr }> = [];
  for (const f of functions) {
    const loops = f.site.loops.map((id) => loopById.get(id)!);
    const trips = counter.tripCounts(
      f.func,
      f.loopExprs,
      loops.map((l) => l.topTested),
    );
    loops.forEach((l, i) => {
      l.staticTrips = trips[i] ?? null;
    });
    f.site.calls.forEach((id, i) => {
      const site = callById.get(id)!;
      if (site.kind === 'indirect') indirect.push({ site, expr: f.callExprs[i]! });
    });
  }
  const bodies = functions.map((f) => Func.getBody(f.func)).filter((b) => b !== 0);
  const candidates = indirectCallCandidates(
    module,
    indirect.map((c) => c.expr),
    bodies,
  );
  // Calls of one signature share their candidate list (one list per table and signature).
  const named = new Map<string[], string[]>();
  const display = (list: string[]) => named.get(list) ?? named.set(list, list.map(displayName)).get(list)!;
  indirect.forEach((c, i) => {
    c.site.candidates = candidates[i] ? display(candidates[i]) : null;
  });
}

function walkFunction(
  body: Expr,
  fn: FunctionSite,
  analysis: FunctionAnalysis,
  table: SiteTable,
  imported: Set<string>,
  displayName: (n: string) => string,
): void {
  const loopStack: LoopSite[] = [];
  const loopByLabel = new Map<string, LoopSite>();
  const ownLoops: LoopSite[] = [];
  const ownCalls: CallSite[] = [];
  const visit = (expr: Expr): number => {
    const id = idOf(expr);
    let loop: LoopSite | null = null;
    if (id === Id.Loop) {
      const label = Loop.getName(expr) ?? '';
      loop = {
        id: `L${table.loops.length}`,
        function: fn.name,
        label,
        parent: loopStack.at(-1)?.id ?? null,
        depth: loopStack.length + 1,
        backEdges: 0,
        topTested: isTopTested(expr),
        calls: [],
        instructions: 0,
      };
      table.loops.push(loop);
      ownLoops.push(loop);
      fn.loops.push(loop.id);
      analysis.loopExprs.push(expr);
      loopStack.push(loop);
      if (label) loopByLabel.set(label, loop);
    }
    if (id === Id.Break || id === Id.Switch) {
      for (const target of branchTargets(expr)) {
        const header = loopByLabel.get(target);
        if (header && loopStack.includes(header)) header.backEdges++;
      }
    }
    let count = isCountedInstruction(expr) ? 1 : 0;
    // An `if` opcode sits between its condition and its arms; br_if and br_table after their operands.
    const operands = children(expr);
    for (let i = 0; i < operands.length; i++) {
      count += visit(operands[i]!);
      if (i === 0 && id === Id.If) analysis.branchExprs.push(expr);
    }
    if ((id === Id.Break && Break.getCondition(expr)) || id === Id.Switch) analysis.branchExprs.push(expr);
    if (id === Id.Call || id === Id.CallIndirect) {
      const target = id === Id.Call ? Call.getTarget(expr) : null;
      const call: CallSite = {
        id: `C${table.calls.length}`,
        function: fn.name,
        loop: loopStack.at(-1)?.id ?? null,
        kind: id === Id.CallIndirect ? 'indirect' : imported.has(target!) ? 'import' : 'direct',
        target: target === null ? null : imported.has(target) ? target : displayName(target),
      };
      table.calls.push(call);
      ownCalls.push(call);
      fn.calls.push(call.id);
      analysis.callExprs.push(expr);
      loopStack.at(-1)?.calls.push(call.id);
    }
    if (loop) {
      loop.instructions = count;
      loopStack.pop();
      if (loop.label) loopByLabel.delete(loop.label);
    }
    return count;
  };
  fn.instructions = visit(body);
  applyNaturalLoops(body, fn, analysis, ownLoops, ownCalls);
}

/**
 * Nesting, calls per loop and the top-tested shape come from the CFG's natural loops, not from the
 * nesting of `loop` constructs: code after a loop's exit that a compiler left inside the construct
 * (three sequential loops emitted as a three-deep nest) is not part of the loop.
 */
function applyNaturalLoops(
  body: Expr,
  fn: FunctionSite,
  analysis: FunctionAnalysis,
  loops: LoopSite[],
  calls: CallSite[],
): void {
  if (analysis.loopExprs.length === 0) return;
  const cfg = buildCfg(body);
  if (cfg.loops.length !== loops.length)
    throw new Error(`internal: the CFG of ${fn.name} has ${cfg.loops.length} loops, the site table ${loops.length}`);
  loops.forEach((loop, k) => {
    const natural = cfg.loops[k]!;
    loop.parent = natural.parent === null ? null : loops[natural.parent]!.id;
    loop.depth = natural.depth;
    loop.topTested = isTopTestedLoop(cfg, k);
    loop.calls = [];
  });
  calls.forEach((call, i) => {
    const node = cfg.nodeOf.get(analysis.callExprs[i]!);
    const k = node === undefined ? -1 : cfg.innermost[node]!;
    call.loop = k >= 0 ? loops[k]!.id : null;
    if (k >= 0) loops[k]!.calls.push(call.id);
  });
}

/**
 * A loop is top-tested (a `while`) when the first control decision of an iteration can leave the
 * loop — a `br_if` out of it, or an `if` in tail position whose fall-through path ends the loop —
 * and nothing with an effect runs before it (else the exit sits mid-body and every header run
 * starts an iteration).
 * Its header then runs once more per entry than its body; a bottom-tested loop runs it once per
 * iteration. This is what lets us report source-level iteration counts for both shapes.
 */
export function isTopTested(loop: Expr): boolean {
  const label = Loop.getName(loop);
  const body = Loop.getBody(loop);
  const inner = new Set<string>();
  let decided: boolean | null = null;
  let effects = false;
  const firstControl = (expr: Expr, tail: boolean): void => {
    if (decided !== null) return;
    const id = idOf(expr);
    if (effects) {
      decided = false;
      return;
    }
    if (id === Id.Block) {
      const own = labelOf(expr);
      if (own) inner.add(own);
      const kids = children(expr);
      kids.forEach((kid, i) => firstControl(kid, tail && !own && i === kids.length - 1));
      return;
    }
    if (id === Id.Break) {
      for (const kid of children(expr)) firstControl(kid, false);
      if (decided !== null) return;
      const target = Break.getName(expr);
      decided = !effects && !!Break.getCondition(expr) && target !== label && !inner.has(target);
      return;
    }
    if (id === Id.If) {
      firstControl(If.getCondition(expr), false);
      if (decided !== null) return;
      if (effects) {
        decided = false;
        return;
      }
      const yes = If.getIfTrue(expr);
      const no = If.getIfFalse(expr);
      const yesLoops = reachesLabel(yes, label);
      const noLoops = no ? reachesLabel(no, label) : false;
      if (yesLoops === noLoops) decided = false;
      else if (!no) decided = tail;
      else decided = !(yesLoops ? no : yes) ? false : leavesUnconditionally(yesLoops ? no : yes, label);
      return;
    }
    if (id === Id.Loop || id === Id.Switch || id === Id.Return || id === Id.Unreachable) {
      decided = false;
      return;
    }
    for (const kid of children(expr)) firstControl(kid, false);
    if (HEADER_EFFECTS.has(id)) effects = true;
  };
  firstControl(body, true);
  return decided ?? false;
}

/**
 * Effects before the first control decision: the CFG's, and a local written (this tree walk has no
 * liveness to tell a local read after the exit from one that is not).
 */
const HEADER_EFFECTS: ReadonlySet<number> = new Set([Id.LocalSet, ...EFFECTS]);

function reachesLabel(expr: Expr, label: string): boolean {
  let found = false;
  const visit = (e: Expr) => {
    if (found) return;
    if (branchTargets(e).includes(label)) found = true;
    for (const kid of children(e)) visit(kid);
  };
  visit(expr);
  return found;
}

/** True when an arm always leaves the loop: its last instruction is a branch out or a return. */
function leavesUnconditionally(arm: Expr, loopLabel: string): boolean {
  let last = arm;
  while (idOf(last) === Id.Block && Block.getNumChildren(last) > 0 && !labelOf(last)) {
    last = Block.getChildAt(last, Block.getNumChildren(last) - 1);
  }
  const id = idOf(last);
  if (id === Id.Return) return true;
  if (id === Id.Break && !Break.getCondition(last)) return Break.getName(last) !== loopLabel;
  return false;
}
