// Whether a value a loop leaves in a local can be read after the loop (a conservative answer: "no"
// only when it is proven). A read outside the loop cannot see the loop's value when, going back
// from the read in evaluation order through its enclosing expressions, a `local.set` of the same
// local comes before anything that contains the loop. Going back out of an enclosing loop gives up
// (its back edge may bring a value from anywhere in it), as does meeting the loop itself. Branches
// need no case of their own: a branch from the loop to a point before the read ends a block, and
// that block stands between the read and the set (it contains the loop), so the walk meets it.
import { Func, Id, If, LocalGet, LocalSet, children, idOf, parentsOf, walkPostOrder, type Expr } from './ir.js';

/** The function's tree indexed for the question: each expression's parent, each local's reads. */
export interface LocalReads {
  parents: Map<Expr, Expr>;
  reads: Map<number, Expr[]>;
}

export function indexLocalReads(func: number): LocalReads {
  const body = Func.getBody(func);
  const parents = parentsOf(body);
  const reads = new Map<number, Expr[]>();
  walkPostOrder(body, (e) => {
    if (idOf(e) === Id.LocalGet) {
      const local = LocalGet.getIndex(e);
      const list = reads.get(local);
      if (list) list.push(e);
      else reads.set(local, [e]);
    }
  });
  return { parents, reads };
}

/** Whether no read of `local` outside `loop` can see a value written to it inside `loop`. */
export function deadAfterLoop(index: LocalReads, loop: Expr, local: number): boolean {
  const enclosing = new Set<Expr>();
  for (let e: Expr | undefined = loop; e !== undefined; e = index.parents.get(e)) enclosing.add(e);
  return (index.reads.get(local) ?? []).every(
    (read) => insideOf(index, read, loop) || killedBefore(index, read, local, enclosing),
  );
}

function insideOf(index: LocalReads, e: Expr, loop: Expr): boolean {
  for (let at: Expr | undefined = e; at !== undefined; at = index.parents.get(at)) if (at === loop) return true;
  return false;
}

/** Whether a `local.set` of `local` runs on every path to `read` after the last run of the loop (`enclosing`: it and its ancestors). */
function killedBefore(index: LocalReads, read: Expr, local: number, enclosing: Set<Expr>): boolean {
  let node = read;
  for (;;) {
    const parent = index.parents.get(node);
    // The function's entry: the loop has not run on this path.
    if (parent === undefined) return true;
    if (idOf(parent) === Id.Loop) return false;
    for (const earlier of evaluatedBefore(parent, node).reverse()) {
      if (enclosing.has(earlier)) return false;
      if (idOf(earlier) === Id.LocalSet && LocalSet.getIndex(earlier) === local) return true;
    }
    node = parent;
  }
}

/** The operands of `parent` that run before `child` whenever `child` runs. */
function evaluatedBefore(parent: Expr, child: Expr): Expr[] {
  if (idOf(parent) === Id.If) return child === If.getCondition(parent) ? [] : [If.getCondition(parent)];
  const operands = children(parent);
  return operands.slice(0, operands.indexOf(child));
}
