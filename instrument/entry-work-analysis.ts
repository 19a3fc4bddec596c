// What the entry-work pass needs of a module, and nothing more: per defined function its name (as
// the site table names it), its instruction count and the own instructions of each of its loops.
// The full analysis (sites.ts) also builds every call site, trip count, indirect-call candidate
// list and source location; on yosys that was 6 s of a 31 s instrumentation and a 287 MB table
// the coverage run never read. The counts are the site table's by construction: the same
// instruction rule (isCountedInstruction), the same pre-order of loops, and the loop nesting from
// the CFG's natural loops (cfg.ts), as applyNaturalLoops sets it.
import binaryen from 'binaryen';
import { Block, Break, Func, Id, If, Loop, Switch, children, idOf, isCountedInstruction, type Expr } from './ir.js';
import { definedFunctions } from './memory-layout.js';
import { isTailCall } from './tail-calls.js';
import { naturalLoopParents, type LoopGraphNode } from './cfg.js';

/** A defined function as the entry-work pass counts it. */
export interface CountedFunction {
  /** Position among the defined functions: the counter's index. */
  index: number;
  /** Its site-table name. */
  name: string;
  func: number;
  /** Instructions of the whole body (the site table's `instructions`). */
  instructions: number;
  /** Its `loop` expressions in pre-order (the site table's loop order). */
  loopExprs: Expr[];
  /** Instructions outside its loops, and of each loop outside its nested loops (entry-work.ts). */
  own: { entry: number; loops: number[] };
}

export interface EntryWorkAnalysis {
  functions: CountedFunction[];
  /** Defined functions with no name at all (shown as funcN), as the site table counts them. */
  unnamed: number;
}

/** The counts, or null when the module has tail calls (the full pipeline lowers them first, which changes the counts). */
export function analyzeEntryWork(module: binaryen.Module): EntryWorkAnalysis | null {
  const exportNames = new Map<string, string>();
  for (let i = 0; i < module.getNumExports(); i++) {
    const info = binaryen.getExportInfo(module.getExportByIndex(i));
    if (info.kind === binaryen.ExternalFunction && !exportNames.has(info.value)) exportNames.set(info.value, info.name);
  }
  const functions: CountedFunction[] = [];
  let unnamed = 0;
  for (const [index, func] of definedFunctions(module).entries()) {
    // As analyzeModule names them: without a name section Binaryen names a function by number.
    const internal = Func.getName(func);
    const numbered = /^\d+$/.test(internal);
    if (numbered && !exportNames.has(internal)) unnamed++;
    const name = numbered ? (exportNames.get(internal) ?? `func${internal}`) : internal;
    const body = Func.getBody(func);
    const counted = body ? countBody(body) : { instructions: 0, loops: [], parents: [] };
    if (counted === null) return null;
    const loopExprs = counted.loops.map((l) => l.expr);
    functions.push({
      index,
      name,
      func,
      instructions: counted.instructions,
      loopExprs,
      own: ownInstructions(counted.instructions, counted.loops, counted.parents),
    });
  }
  return { functions, unnamed };
}

interface CountedLoop {
  expr: Expr;
  /** Instructions inside the loop, nested loops included. */
  instructions: number;
  /** Its header node in the function's graph. */
  header: number;
}

/**
 * Counts a body's instructions and loops in one walk that also builds the control-flow graph
 * buildCfg (cfg.ts) builds, with only what its natural loops need: edges and instructions per
 * node. Walking the IR twice (count, then buildCfg) was 2.3 s of yosys's 3.5 s analysis, nearly all
 * of it in Binaryen's getters. The graph follows buildCfg step by step: the loop nesting must be
 * the site table's exactly (test/instrument/entry-work-analysis.test.ts compares them).
 */
function countBody(body: Expr): { instructions: number; loops: CountedLoop[]; parents: Array<number | null> } | null {
  const graph = new LoopGraph();
  const entry = graph.node();
  const exit = graph.node();
  const labels: Array<{ name: string; node: number }> = [];
  const target = (name: string): number => {
    for (let i = labels.length - 1; i >= 0; i--) if (labels[i]!.name === name) return labels[i]!.node;
    throw new Error(`internal: branch to unknown label ${name}`);
  };
  const loops: CountedLoop[] = [];
  let tailCalls = false;
  let cur = entry;
  const walk = (expr: Expr): number => {
    const id = idOf(expr);
    if (id === Id.Block) {
      const name = Block.getName(expr);
      const end = graph.node();
      if (name) labels.push({ name, node: end });
      let count = 0;
      const n = Block.getNumChildren(expr);
      for (let i = 0; i < n; i++) count += walk(Block.getChildAt(expr, i));
      if (name) labels.pop();
      graph.edge(cur, end);
      cur = end;
      return count;
    }
    if (id === Id.Loop) {
      const header = graph.node();
      graph.edge(cur, header);
      const loop: CountedLoop = { expr, instructions: 0, header };
      loops.push(loop);
      cur = header;
      labels.push({ name: Loop.getName(expr), node: header });
      loop.instructions = 1 + walk(Loop.getBody(expr));
      labels.pop();
      const end = graph.node();
      graph.edge(cur, end);
      cur = end;
      return loop.instructions;
    }
    if (id === Id.If) {
      let count = 1 + walk(If.getCondition(expr));
      const test = cur;
      const join = graph.node();
      for (const arm of [If.getIfTrue(expr), If.getIfFalse(expr)]) {
        if (!arm) {
          graph.edge(test, join);
          continue;
        }
        const start = graph.node();
        graph.edge(test, start);
        cur = start;
        count += walk(arm);
        graph.edge(cur, join);
      }
      cur = join;
      return count;
    }
    let count = isCountedInstruction(expr) ? 1 : 0;
    for (const child of children(expr)) count += walk(child);
    if (id === Id.Break) {
      const condition = Break.getCondition(expr);
      if (condition || Break.getValue(expr)) graph.count(cur);
      graph.edge(cur, target(Break.getName(expr)));
      if (condition) {
        const next = graph.node();
        graph.edge(cur, next);
        cur = next;
      } else cur = graph.node();
      return count;
    }
    if (id === Id.Switch) {
      graph.count(cur);
      const names = [...Switch.getNames(expr)];
      const fallback = Switch.getDefaultName(expr);
      if (fallback) names.push(fallback);
      for (const name of names) graph.edge(cur, target(name));
      cur = graph.node();
      return count;
    }
    graph.count(cur);
    if ((id === Id.Call || id === Id.CallIndirect) && isTailCall(expr)) tailCalls = true;
    if (id === Id.Return) {
      graph.edge(cur, exit);
      cur = graph.node();
    } else if (id === Id.Unreachable) cur = graph.node();
    return count;
  };
  const instructions = walk(body);
  if (tailCalls) return null;
  graph.edge(cur, exit);
  // A lone loop has no other loop to sit in.
  const parents =
    loops.length < 2
      ? loops.map(() => null)
      : naturalLoopParents(
          graph.nodes,
          entry,
          loops.map((l) => l.header),
        );
  return { instructions, loops, parents };
}

/** Nodes and edges of a body's control flow: what cfg.ts's natural loops read of its CfgNodes. */
class LoopGraph {
  readonly nodes: LoopGraphNode[] = [];

  node(): number {
    this.nodes.push({ succs: [], preds: [], size: 0 });
    return this.nodes.length - 1;
  }

  edge(from: number, to: number): void {
    const succs = this.nodes[from]!.succs;
    if (succs.includes(to)) return;
    succs.push(to);
    this.nodes[to]!.preds.push(from);
  }

  /** Counts an instruction in the node, as buildCfg counts them (a plain `br` and structure not). */
  count(node: number): void {
    this.nodes[node]!.size++;
  }
}

/**
 * Instructions of the function outside its loops, and of each loop outside its nested loops; at
 * least 1 each. A loop's count includes every loop inside its construct, and each loop's count is
 * taken off its natural parent's (or the function's, for a loop with none).
 */
export function ownInstructions(
  instructions: number,
  loops: Array<{ instructions: number }>,
  parents: Array<number | null>,
): { entry: number; loops: number[] } {
  const own = loops.map((l) => l.instructions);
  let entry = instructions;
  loops.forEach((loop, i) => {
    const parent = parents[i]!;
    if (parent === null) entry -= loop.instructions;
    else own[parent] = own[parent]! - loop.instructions;
  });
  return { entry: Math.max(entry, 1), loops: own.map((n) => Math.max(n, 1)) };
}
