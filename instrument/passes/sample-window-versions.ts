// The code of a charge window twice (issue 27, docs/blame.md "Measured", twelfth session). A
// region's check charges the leaves checked at its start (ChargeWindow in passes/sample.ts): when
// the countdown covers them all none of their checks can fire, and each leaf only tests the flag
// the check sets when it came up short. Those flag tests were most of what sampling cost a
// call-heavy -O0 element loop (the flag lives across the leaves' calls, so each test is a load from
// the stack frame). Here the window's statements run in two copies: the original with every leaf's
// check unconditional (the flag is known set there; the check clears it where the window's last
// leaf did) and a copy with none. Where the region's check is the last thing the statement before
// them runs, the check itself picks the copy (no flag test at all when the countdown covers the
// window) and, when the window also charges its loop's header, the copies reach to the loop's back
// edge and the short one checks the header there (headerAtBackEdge). Elsewhere one flag test picks
// the copy. The same checks run with the same countdowns in the same order: the same samples.
import binaryen from 'binaryen';
import { Block, Break, Id, If, LocalGet, Loop, childSlots, idOf, parentsOf, type Expr } from '../ir.js';
import { renameLabels } from './shadow-versioning.js';

/** A window as the pass built it. */
export interface WindowCode {
  /** Its region's check, which sets `flag` when the countdown does not cover the window. */
  check: Expr;
  flag: number;
  /** Per leaf call, in order: the block right before the call holding `if (flag) <the leaf's check>`. */
  leaves: Expr[];
  /**
   * The region's check again, leading to `short` when the countdown does not cover the window and
   * to `covered` when it does; `headerTests`: the loop header the window charges still tests the flag.
   */
  merged: (arms: WindowArms, headerTests: boolean) => Expr;
  /** The loop header the window charges, when it shares the flag (prechargeHeaders in passes/sample.ts). */
  header?: WindowHeader;
}

/** A loop header charged by a window: `test` is `if (flag) { flag = 0; check }` at the top of `loop`. */
export interface WindowHeader {
  test: Expr;
  check: Expr;
  loop: Expr;
}

/** What follows a window's check when the check itself picks the copy. */
export interface WindowArms {
  short: Expr;
  covered: Expr;
}

/**
 * Nodes a window's statements may hold to be copied. Statements holding a loop are not copied
 * either: a window outside a loop runs once per call, and a loop copied twice would only add code
 * (and shift the loop numbering the bench's hot-loop column follows, bench/instruction-ratio.ts).
 */
export const WINDOW_COPY_LIMIT = 2000;

/**
 * Runs each window's statements twice where that can be done (returns how many): in the
 * function's innermost block holding every leaf call (and the region's check, sliceOf), the
 * statements from the one after the check's, else from the one holding the first call, to the one
 * holding the last, when they hold no loop and no other window's check or call. A window of one
 * leaf whose check cannot pick the copy is left as it is (one flag test either way).
 */
export function versionWindows(module: binaryen.Module, body: Expr, windows: readonly WindowCode[]): number {
  if (windows.length === 0) return 0;
  const parents = parentsOf(body);
  const markers = new Set<Expr>();
  for (const w of windows) {
    markers.add(w.check);
    for (const leaf of w.leaves) markers.add(leaf);
  }
  let versioned = 0;
  for (const window of windows) {
    const own = new Set(window.leaves);
    const checks = window.leaves.map((leaf) => flaggedCheck(leaf, window.flag));
    if (checks.some((c) => c === null)) continue;
    // The check itself leads to the copies when nothing runs between it and the window's statements
    // but what they start with; else, for two leaves or more, one flag test does.
    const usable = (slice: Slice | null) =>
      slice && copyable(slice.statements, (e) => markers.has(e) && !own.has(e)) ? slice : null;
    const slice =
      usable(sliceOf(window, parents, true)) ??
      (window.leaves.length >= 2 ? usable(sliceOf(window, parents, false)) : null);
    if (!slice) continue;
    const { parent, first, merged } = slice;
    // Copies from the check that reach the loop's back edge check the header there, on the short
    // side only (no flag): see headerAtBackEdge.
    const header = merged && window.header ? headerAtBackEdge(window.header, slice, parents, usable) : null;
    const statements = header ? header.statements : slice.statements;
    for (let k = 0; k < statements.length; k++) Block.removeChildAt(parent, first);
    const slow = module.block(null, statements, binaryen.auto);
    // The copy is taken with the leaves' blocks emptied; then the original gets the checks unconditionally.
    window.leaves.forEach((leaf) => Block.setChildAt(leaf, 0, module.nop()));
    const fast = module.copyExpression(slow);
    renameLabels(fast);
    window.leaves.forEach((leaf, k) => Block.setChildAt(leaf, 0, checks[k]!));
    let versions: Expr;
    if (header) {
      Block.insertChildAt(slow, statements.length - 1, module.copyExpression(window.header!.check));
      header.removeTest(module.nop());
      Block.insertChildAt(header.loopParent, header.loopIndex(), module.copyExpression(window.header!.check));
    }
    if (merged) {
      // The check moves from the end of the statement before (its last step) to the head of the copies.
      Block.setChildAt(window.check, 0, module.nop());
      versions = window.merged({ short: slow, covered: fast }, header === null);
    } else versions = module.if(module.local.get(window.flag, binaryen.i32), slow, fast);
    Block.insertChildAt(parent, first, versions);
    parents.set(versions, parent);
    parents.set(slow, versions);
    for (const statement of statements) parents.set(statement, slow);
    versioned++;
  }
  return versioned;
}

/**
 * A loop header charged by the window runs right after the loop's one back edge, a plain `br` to
 * it, and once on entry. When that `br` follows the window's statements in their block, the copies
 * reach to it and the short one checks the header right before it (the countdown, locals and memory
 * are the header's there), and the header's check on entry goes right before the loop: the header
 * itself no longer tests the flag. Returns the statements through the `br`, or null.
 */
function headerAtBackEdge(
  header: WindowHeader,
  slice: Slice,
  parents: ReadonlyMap<Expr, Expr>,
  usable: (slice: Slice) => Slice | null,
): { statements: Expr[]; removeTest: (nop: Expr) => void; loopParent: Expr; loopIndex: () => number } | null {
  const label = Loop.getName(header.loop);
  const children = childSlots(slice.parent).map((slot) => slot.expr);
  const from = slice.first + slice.statements.length;
  const back = children.findIndex(
    (e, k) =>
      k >= from && idOf(e) === Id.Break && Break.getName(e) === label && !Break.getCondition(e) && !Break.getValue(e),
  );
  const loopParent = parents.get(header.loop);
  const testParent = parents.get(header.test);
  if (back < 0 || !label || loopParent === undefined || idOf(loopParent) !== Id.Block || testParent === undefined)
    return null;
  const extended = usable({ ...slice, statements: children.slice(slice.first, back + 1) });
  const testSlot = childSlots(testParent).find((slot) => slot.expr === header.test);
  if (!extended || !testSlot) return null;
  return {
    statements: extended.statements,
    removeTest: (nop) => testSlot.replace(nop),
    loopParent,
    loopIndex: () => childSlots(loopParent).findIndex((slot) => slot.expr === header.loop),
  };
}

function ancestors(expr: Expr, parents: ReadonlyMap<Expr, Expr>): Expr[] {
  const chain = [expr];
  for (let at = parents.get(expr); at !== undefined; at = parents.get(at)) chain.push(at);
  return chain;
}

/** Statements `first`.. of `parent` to run in two copies; `merged`: right after the window's check. */
interface Slice {
  parent: Expr;
  first: number;
  statements: Expr[];
  merged: boolean;
}

/**
 * The innermost block holding every leaf call of the window (and, `fromCheck`, the region's check)
 * and its statements from the first call's (or from the one after the check's) to the last call's.
 * From the check, the check must be the last thing its statement runs, through unnamed blocks (no
 * branch can skip it), so that running it after that statement changes nothing.
 */
function sliceOf(window: WindowCode, parents: ReadonlyMap<Expr, Expr>, fromCheck: boolean): Slice | null {
  const chains = window.leaves.map((leaf) => ancestors(leaf, parents));
  const checkChain = ancestors(window.check, parents);
  const all = fromCheck ? [checkChain, ...chains] : chains;
  const shared = new Set(all[0]);
  for (const chain of all.slice(1)) {
    const here = new Set(chain);
    for (const expr of shared) if (!here.has(expr)) shared.delete(expr);
  }
  // The chains run leaf → root: the first shared block of the first chain is the innermost.
  const parent = chains[0]!.find((e) => shared.has(e) && idOf(e) === Id.Block && !window.leaves.includes(e));
  if (parent === undefined) return null;
  const statementOf = (chain: Expr[]) => chain[chain.indexOf(parent) - 1]!;
  const children = childSlots(parent).map((slot) => slot.expr);
  const last = children.indexOf(statementOf(chains.at(-1)!));
  if (fromCheck) {
    const before = children.indexOf(statementOf(checkChain));
    if (before < 0 || last <= before) return null;
    for (let at = window.check; at !== children[before];) {
      const up = parents.get(at)!;
      if (idOf(up) !== Id.Block || Block.getName(up) || Block.getChildAt(up, Block.getNumChildren(up) - 1) !== at)
        return null;
      at = up;
    }
    return { parent, first: before + 1, statements: children.slice(before + 1, last + 1), merged: true };
  }
  const first = children.indexOf(statementOf(chains[0]!));
  if (first < 0 || last < first) return null;
  // A statement holding the region's own check would run it behind the flag it sets.
  const statements = children.slice(first, last + 1);
  const inCheck = new Set(checkChain);
  if (statements.some((s) => inCheck.has(s))) return null;
  return { parent, first, statements, merged: false };
}

/** Whether the statements are small enough to copy and hold no loop and nothing `foreign`. */
function copyable(statements: readonly Expr[], foreign: (expr: Expr) => boolean): boolean {
  const stack = [...statements];
  let nodes = 0;
  while (stack.length > 0) {
    const expr = stack.pop()!;
    if (++nodes > WINDOW_COPY_LIMIT || foreign(expr) || idOf(expr) === Id.Loop) return false;
    for (const slot of childSlots(expr)) stack.push(slot.expr);
  }
  return true;
}

/** The check inside a leaf's block `if (flag) <check>`, or null when the block holds something else. */
function flaggedCheck(leaf: Expr, flag: number): Expr | null {
  if (Block.getNumChildren(leaf) !== 1) return null;
  const test = Block.getChildAt(leaf, 0);
  if (idOf(test) !== Id.If || If.getIfFalse(test)) return null;
  const condition = If.getCondition(test);
  if (idOf(condition) !== Id.LocalGet || LocalGet.getIndex(condition) !== flag) return null;
  return If.getIfTrue(test);
}
