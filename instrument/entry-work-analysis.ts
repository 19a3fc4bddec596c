// What the entry-work pass needs of a module, and nothing more: per defined function its name (as
// the site table names it), its instruction count and the own instructions of each of its loops.
// The full analysis (sites.ts) also builds every call site, trip count, indirect-call candidate
// list and source location; on yosys that was 6 s of a 31 s instrumentation and a 287 MB table
// the coverage run never read. The counts are the site table's by construction: the same
// instruction rule (isCountedInstruction), the same pre-order of loops, and the loop nesting from
// the CFG's natural loops (cfg.ts), as applyNaturalLoops sets it.
import binaryen from 'binaryen';
import { Func, Id, children, idOf, isCountedInstruction, type Expr } from './ir.js';
import { buildCfg } from './cfg.js';
import { definedFunctions } from './memory-layout.js';
import { isTailCall } from './tail-calls.js';

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
    const counted = body ? countBody(body) : { instructions: 0, loops: [], tailCalls: false };
    if (counted.tailCalls) return null;
    const loopExprs = counted.loops.map((l) => l.expr);
    functions.push({
      index,
      name,
      func,
      instructions: counted.instructions,
      loopExprs,
      own: ownInstructions(counted.instructions, counted.loops, body ? loopParents(body, loopExprs, name) : []),
    });
  }
  return { functions, unnamed };
}

interface CountedLoop {
  expr: Expr;
  /** Instructions inside the loop, nested loops included. */
  instructions: number;
}

function countBody(body: Expr): { instructions: number; loops: CountedLoop[]; tailCalls: boolean } {
  const loops: CountedLoop[] = [];
  let tailCalls = false;
  const visit = (expr: Expr): number => {
    const id = idOf(expr);
    let loop: CountedLoop | null = null;
    if (id === Id.Loop) loops.push((loop = { expr, instructions: 0 }));
    else if ((id === Id.Call || id === Id.CallIndirect) && isTailCall(expr)) tailCalls = true;
    let count = isCountedInstruction(expr) ? 1 : 0;
    for (const child of children(expr)) count += visit(child);
    if (loop) loop.instructions = count;
    return count;
  };
  return { instructions: visit(body), loops, tailCalls };
}

/** Each loop's natural parent (index into the loops), as sites.ts's applyNaturalLoops sets it. */
function loopParents(body: Expr, loopExprs: Expr[], name: string): Array<number | null> {
  // A lone loop has no other loop to sit in; the CFG is only needed from two loops on.
  if (loopExprs.length < 2) return loopExprs.map(() => null);
  const cfg = buildCfg(body);
  if (cfg.loops.length !== loopExprs.length)
    throw new Error(`internal: the CFG of ${name} has ${cfg.loops.length} loops, the walk ${loopExprs.length}`);
  return cfg.loops.map((loop) => loop.parent);
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
