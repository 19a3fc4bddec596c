// Control-flow graph of one function body: basic blocks and edges from block / loop / if / br /
// br_if / br_table / return / unreachable, immediate post-dominators, and natural loops from back
// edges. Works on any Binaryen IR (nested expressions are walked in evaluation order), and is
// what the passes read loop membership, loop exits and control dependence from, instead of the
// nesting of `loop` and `block` constructs: compilers put code that runs after a loop's exit
// inside the `loop` construct, and write exits as forward branches over an unconditional `br`.
import {
  Block,
  Break,
  Id,
  If,
  LocalGet,
  LocalSet,
  Loop,
  Switch,
  Call,
  CallIndirect,
  children,
  idOf,
  type Expr,
} from './ir.js';

/** Where a node starts in the structured code (where code that runs "on entry to the node" goes). */
export type NodeStart =
  | { kind: 'entry' }
  | { kind: 'exit' }
  /** The top of a loop's body (reached on entry and by every back edge). */
  | { kind: 'header'; loop: Expr }
  /** The start of an `if` arm (arm 0: then, 1: else). */
  | { kind: 'arm'; expr: Expr; arm: 0 | 1 }
  /** Right after a statement: the end of a block, loop or if, or the fall-through of a br_if. */
  | { kind: 'after'; expr: Expr }
  /** After an unconditional transfer: code nothing reaches. */
  | { kind: 'dead' };

export interface CfgNode {
  id: number;
  succs: number[];
  preds: number[];
  start: NodeStart;
  /** The conditional branch (if / br_if / br_table) that ends the node, if any. */
  branch: Expr | null;
  /** Locals written in the node, and reads per local. */
  sets: Set<number>;
  gets: Map<number, number>;
  /** Contains a `return` (or a return_call). */
  returns: boolean;
  /** Writes memory, a global or a table, or calls (local writes do not count). */
  effects: boolean;
  /** Instructions in the node (structure — block, loop, if, a plain `br` — not counted). */
  size: number;
}

/** What the natural loops read of a node: its edges and its instructions. */
export type LoopGraphNode = Pick<CfgNode, 'succs' | 'preds' | 'size'>;

export interface NaturalLoop {
  /** The `loop` construct. */
  expr: Expr;
  header: number;
  /** The header and every node that reaches a back edge without passing the header; empty without back edges. */
  nodes: Set<number>;
  /** Index of the innermost other natural loop holding this one's header, or null. */
  parent: number | null;
  depth: number;
}

export interface Cfg {
  nodes: CfgNode[];
  entry: number;
  /** The function's exit: returns and falling off the end lead here (traps lead nowhere). */
  exit: number;
  /** Node holding each expression walked (a branch: the node it ends). */
  nodeOf: Map<Expr, number>;
  /** Node starting right after a block / loop / if / br_if. */
  after: Map<Expr, number>;
  /** Target nodes of each branch (br, br_if, br_table), in order, without duplicates. */
  targets: Map<Expr, number[]>;
  /** Natural loops, one per `loop` construct, in evaluation (pre-)order. */
  loops: NaturalLoop[];
  loopOfExpr: Map<Expr, number>;
  /** Innermost natural loop containing each node, or -1. */
  innermost: Int32Array;
  /** Immediate post-dominator of each node; -1 for the exit and for nodes that never reach it. */
  ipdom: Int32Array;
  /** Reachable from the entry. */
  live: Uint8Array;
}

export function buildCfg(body: Expr): Cfg {
  const nodes: CfgNode[] = [];
  const newNode = (start: NodeStart): number => {
    nodes.push({
      id: nodes.length,
      succs: [],
      preds: [],
      start,
      branch: null,
      sets: new Set(),
      gets: new Map(),
      returns: false,
      effects: false,
      size: 0,
    });
    return nodes.length - 1;
  };
  const edge = (from: number, to: number) => {
    const f = nodes[from]!;
    if (f.succs.includes(to)) return;
    f.succs.push(to);
    nodes[to]!.preds.push(from);
  };
  const entry = newNode({ kind: 'entry' });
  const exit = newNode({ kind: 'exit' });
  const nodeOf = new Map<Expr, number>();
  const after = new Map<Expr, number>();
  const targets = new Map<Expr, number[]>();
  const loopExprs: Expr[] = [];
  const headers: number[] = [];
  const labels: Array<{ name: string; node: number }> = [];
  const lookup = (name: string): number => {
    for (let i = labels.length - 1; i >= 0; i--) if (labels[i]!.name === name) return labels[i]!.node;
    throw new Error(`cfg: branch to unknown label ${name}`);
  };
  let cur = entry;
  const branchTo = (e: Expr, names: string[]) => {
    const list: number[] = [];
    for (const name of names) {
      const t = lookup(name);
      if (!list.includes(t)) list.push(t);
      edge(cur, t);
    }
    targets.set(e, list);
  };

  const walk = (e: Expr): void => {
    const id = idOf(e);
    nodeOf.set(e, cur);
    if (id === Id.Block) {
      const name = Block.getName(e);
      const end = newNode({ kind: 'after', expr: e });
      if (name) labels.push({ name, node: end });
      const n = Block.getNumChildren(e);
      for (let i = 0; i < n; i++) walk(Block.getChildAt(e, i));
      if (name) labels.pop();
      edge(cur, end);
      cur = end;
      after.set(e, end);
      return;
    }
    if (id === Id.Loop) {
      const header = newNode({ kind: 'header', loop: e });
      edge(cur, header);
      loopExprs.push(e);
      headers.push(header);
      cur = header;
      labels.push({ name: Loop.getName(e), node: header });
      walk(Loop.getBody(e));
      labels.pop();
      const end = newNode({ kind: 'after', expr: e });
      edge(cur, end);
      cur = end;
      after.set(e, end);
      return;
    }
    if (id === Id.If) {
      walk(If.getCondition(e));
      const test = cur;
      nodes[test]!.branch = e;
      nodeOf.set(e, test);
      const join = newNode({ kind: 'after', expr: e });
      const arms: Array<Expr | 0> = [If.getIfTrue(e), If.getIfFalse(e)];
      arms.forEach((arm, k) => {
        if (!arm) {
          edge(test, join);
          return;
        }
        const start = newNode({ kind: 'arm', expr: e, arm: k as 0 | 1 });
        edge(test, start);
        cur = start;
        walk(arm);
        edge(cur, join);
      });
      cur = join;
      after.set(e, join);
      return;
    }
    if (id === Id.Break) {
      for (const child of children(e)) walk(child);
      nodeOf.set(e, cur);
      if (Break.getCondition(e) || Break.getValue(e)) nodes[cur]!.size++;
      branchTo(e, [Break.getName(e)]);
      if (Break.getCondition(e)) {
        nodes[cur]!.branch = e;
        const next = newNode({ kind: 'after', expr: e });
        edge(cur, next);
        cur = next;
        after.set(e, next);
      } else {
        cur = newNode({ kind: 'dead' });
      }
      return;
    }
    if (id === Id.Switch) {
      for (const child of children(e)) walk(child);
      nodeOf.set(e, cur);
      nodes[cur]!.size++;
      const names = [...Switch.getNames(e)];
      const fallback = Switch.getDefaultName(e);
      if (fallback) names.push(fallback);
      branchTo(e, names);
      nodes[cur]!.branch = e;
      cur = newNode({ kind: 'dead' });
      return;
    }
    for (const child of children(e)) walk(child);
    nodeOf.set(e, cur);
    const node = nodes[cur]!;
    node.size++;
    if (EFFECTS.has(id)) node.effects = true;
    if (id === Id.LocalSet) node.sets.add(LocalSet.getIndex(e));
    else if (id === Id.LocalGet) node.gets.set(LocalGet.getIndex(e), (node.gets.get(LocalGet.getIndex(e)) ?? 0) + 1);
    const tailCall = (id === Id.Call && Call.isReturn(e)) || (id === Id.CallIndirect && CallIndirect.isReturn(e));
    if (id === Id.Return || tailCall) {
      node.returns = true;
      edge(cur, exit);
      cur = newNode({ kind: 'dead' });
    } else if (id === Id.Unreachable) {
      cur = newNode({ kind: 'dead' });
    }
  };
  walk(body);
  edge(cur, exit);

  const live = reachable(nodes, entry);
  const ipdom = immediatePostDominators(nodes, exit);
  const loops: NaturalLoop[] = naturalLoops(nodes, headers, live).map((loop, i) => ({ expr: loopExprs[i]!, ...loop }));
  const innermost = new Int32Array(nodes.length).fill(-1);
  const bySize = loops.map((_, i) => i).sort((a, b) => loops[b]!.nodes.size - loops[a]!.nodes.size);
  for (const i of bySize) for (const n of loops[i]!.nodes) innermost[n] = i;
  return {
    nodes,
    entry,
    exit,
    nodeOf,
    after,
    targets,
    loops,
    loopOfExpr: new Map(loopExprs.map((e, i) => [e, i])),
    innermost,
    ipdom,
    live,
  };
}

function reachable(nodes: readonly LoopGraphNode[], entry: number): Uint8Array {
  const seen = new Uint8Array(nodes.length);
  const stack = [entry];
  seen[entry] = 1;
  while (stack.length > 0) {
    for (const s of nodes[stack.pop()!]!.succs)
      if (!seen[s]) {
        seen[s] = 1;
        stack.push(s);
      }
  }
  return seen;
}

/** Cooper, Harvey & Kennedy's iterative dominator algorithm on the reversed graph, rooted at the exit. */
function immediatePostDominators(nodes: CfgNode[], exit: number): Int32Array {
  const n = nodes.length;
  const order = new Int32Array(n).fill(-1);
  const postorder: number[] = [];
  // Iterative DFS over predecessors from the exit.
  const stack: Array<{ node: number; next: number }> = [{ node: exit, next: 0 }];
  const visited = new Uint8Array(n);
  visited[exit] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const preds = nodes[top.node]!.preds;
    if (top.next < preds.length) {
      const p = preds[top.next++]!;
      if (!visited[p]) {
        visited[p] = 1;
        stack.push({ node: p, next: 0 });
      }
    } else {
      order[top.node] = postorder.length;
      postorder.push(top.node);
      stack.pop();
    }
  }
  const ipdom = new Int32Array(n).fill(-1);
  ipdom[exit] = exit;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = ipdom[a]!;
      while (order[b]! < order[a]!) b = ipdom[b]!;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let i = postorder.length - 2; i >= 0; i--) {
      const u = postorder[i]!;
      let best = -1;
      for (const s of nodes[u]!.succs) {
        if (ipdom[s] === -1) continue;
        best = best === -1 ? s : intersect(s, best);
      }
      if (best !== -1 && ipdom[u] !== best) {
        ipdom[u] = best;
        changed = true;
      }
    }
  }
  ipdom[exit] = -1;
  return ipdom;
}

/**
 * The parent of each header's natural loop (null: none), in a graph built as buildCfg builds it:
 * entry-work-analysis.ts builds one with only edges and sizes, and its loop nesting must be the
 * site table's.
 */
export function naturalLoopParents(
  nodes: readonly LoopGraphNode[],
  entry: number,
  headers: number[],
): Array<number | null> {
  return naturalLoops(nodes, headers, reachable(nodes, entry)).map((loop) => loop.parent);
}

function naturalLoops(
  nodes: readonly LoopGraphNode[],
  headers: number[],
  live: Uint8Array,
): Array<Omit<NaturalLoop, 'expr'>> {
  const loops: Array<Omit<NaturalLoop, 'expr'>> = headers.map((header) => {
    const members = new Set<number>();
    // Back edges: every live predecessor of the header but the one entering it (structured code:
    // only branches from inside the construct target its header, and the header dominates them).
    const sources = nodes[header]!.preds.filter((p) => live[p] && p !== nodes[header]!.preds[0]);
    if (sources.length > 0) {
      members.add(header);
      const stack = [...sources];
      while (stack.length > 0) {
        const u = stack.pop()!;
        if (members.has(u) || !live[u]) continue;
        members.add(u);
        stack.push(...nodes[u]!.preds);
      }
    }
    return { header, nodes: members, parent: null, depth: 1 };
  });
  // Natural loops of a reducible graph nest or are disjoint: the parent is the smallest other loop holding the header.
  loops.forEach((loop, i) => {
    let best: number | null = null;
    loops.forEach((other, j) => {
      if (j === i || !other.nodes.has(loop.header)) return;
      if (other.nodes.size === loop.nodes.size && j > i) return; // equal sets cannot happen for distinct headers
      if (best === null || other.nodes.size < loops[best]!.nodes.size) best = j;
    });
    loop.parent = best;
  });
  // A loop whose empty header only falls into another loop's header is the same source loop with a
  // second latch (clang -O0 gives a `goto` target before a `while` its own header): the inner one
  // is not nested in it.
  loops.forEach((loop) => {
    const outer = loop.parent === null ? null : loops[loop.parent]!;
    const head = outer ? nodes[outer.header]! : null;
    if (outer && head!.size === 0 && head!.succs.length === 1 && head!.succs[0] === loop.header)
      loop.parent = outer.parent;
  });
  const depthOf = (i: number): number => (loops[i]!.parent === null ? 1 : depthOf(loops[i]!.parent!) + 1);
  loops.forEach((loop, i) => {
    loop.depth = depthOf(i);
  });
  return loops;
}

/** Loops (innermost first) that a conditional branch ending `node` can leave: it is in the loop and some target is not (and can reach the function's exit). */
export function exitedLoops(cfg: Cfg, node: number): number[] {
  const out: number[] = [];
  const succs = cfg.nodes[node]!.succs;
  cfg.loops.forEach((loop, l) => {
    if (loop.nodes.has(node) && succs.some((s) => !loop.nodes.has(s) && leadsOut(cfg, s))) out.push(l);
  });
  return out.sort((a, b) => cfg.loops[a]!.nodes.size - cfg.loops[b]!.nodes.size);
}

/** The first node with code (or a choice) reached from `node` through empty fall-through nodes. */
function settle(cfg: Cfg, node: number): number {
  const seen = new Set<number>();
  while (cfg.nodes[node]!.size === 0 && cfg.nodes[node]!.succs.length === 1 && !seen.has(node)) {
    seen.add(node);
    node = cfg.nodes[node]!.succs[0]!;
  }
  return node;
}

/** An empty node whose only successor is a loop header. */
function isForwarder(cfg: Cfg, node: number): boolean {
  const n = cfg.nodes[node]!;
  return n.size === 0 && n.succs.length === 1 && cfg.nodes[n.succs[0]!]!.start.kind === 'header';
}

/** A path from the node reaches the function's exit (a trap or an endless loop does not leave a loop). */
function leadsOut(cfg: Cfg, node: number): boolean {
  return node === cfg.exit || cfg.ipdom[node] !== -1;
}

/** The nodes a branch ending `node` controls: reachable from its targets without passing its immediate post-dominator. */
export function branchRegion(cfg: Cfg, node: number): Set<number> {
  const stop = cfg.ipdom[node]!;
  const region = new Set<number>();
  const stack = [...cfg.nodes[node]!.succs];
  while (stack.length > 0) {
    const u = stack.pop()!;
    if (u === stop || region.has(u)) continue;
    region.add(u);
    stack.push(...cfg.nodes[u]!.succs);
  }
  return region;
}

/** Expressions with an effect outside the function's locals (global, memory, table state, calls). */
export const EFFECTS: ReadonlySet<number> = new Set<number>([
  Id.GlobalSet,
  Id.Store,
  Id.Call,
  Id.CallIndirect,
  Id.MemoryCopy,
  Id.MemoryFill,
  Id.MemoryInit,
  Id.MemoryGrow,
  Id.SIMDLoadStoreLane,
  Id.TableSet,
  Id.TableGrow,
  Id.DataDrop,
]);

/**
 * A loop is top-tested (a `while`) when its header block, before any effect (a local written there
 * and read elsewhere counts), ends in a branch
 * that can leave the loop and does not itself go back to the header (a latch, as in a rotated
 * `do { } while (c)`, tests at the bottom), and no latch is a test that can leave the loop for
 * another place. Its header then runs once more per entry than its body.
 */
export function isTopTestedLoop(cfg: Cfg, k: number): boolean {
  const loop = cfg.loops[k]!;
  // An empty header falling into another loop's header tests where that one does.
  let test = loop.header;
  for (const seen = new Set<number>(); isForwarder(cfg, test) && !seen.has(test);) {
    seen.add(test);
    test = cfg.nodes[test]!.succs[0]!;
  }
  const header = cfg.nodes[test]!;
  if (!header.branch || header.effects || loop.nodes.size === 0) return false;
  if (header.succs.includes(loop.header) || header.succs.includes(test) || !exitedLoops(cfg, test).includes(k))
    return false;
  // A local written before the test and read elsewhere (`i++; if (i >= n) break;`) is part of the
  // body; temporaries that only feed the test (clang -O0 reloading variables) are not.
  for (const x of header.sets) if (cfg.nodes.some((n) => n.id !== test && n.gets.has(x))) return false;
  // A latch that can also leave the loop (a rotated loop's bottom test) ends most iterations: the
  // header's exit is then a break at the top of the body, not the loop's test — unless both leave
  // to the same place (one test split in two, `while (a && b)`).
  const exitsOf = (node: number) =>
    new Set(cfg.nodes[node]!.succs.filter((s) => !loop.nodes.has(s)).map((s) => settle(cfg, s)));
  const headerExits = exitsOf(test);
  const latches = cfg.nodes[loop.header]!.preds.filter((p) => loop.nodes.has(p));
  return !latches.some(
    (p) =>
      cfg.nodes[p]!.branch !== null &&
      exitedLoops(cfg, p).includes(k) &&
      ![...exitsOf(p)].some((e) => headerExits.has(e)),
  );
}
