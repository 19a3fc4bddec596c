// Which stores a sample of a region records the addresses of (the sampling pass asks this of every
// region of every function): the first `max` distinct (pointer, offset) pairs among the region's
// blame sinks, in the order the blame relations list them (blame-relations.ts) — its explicit sinks,
// else the implicit ones (the explicit sinks of the regions after it, or of the rest of its loop).
//
// The same answer as filtering the full blame, without walking every closure to its end: each
// flow-graph node gets the set of recorded stores it can reach (capped: more than the cap is "many"),
// from its strongly connected components in one pass, and a walk skips a node whose stores it has
// all listed already. Skipping such a node cannot change the order in which the walk first meets
// a store it has not listed: every node the skipped one would have led to reaches only listed
// stores too. A walk stops once it has `max` stores; the implicit lists are merged from per-region
// prefixes (the first `max` of a concatenation only needs the first `max` of each part).
import type { AddressAst, FunctionFacts } from './flow-facts.js';
import type { FlowGraph } from './flow-graph.js';

export interface RecordedStore {
  ptr: AddressAst;
  offset: number;
}

export class RecordedStoreFinder {
  /** Per fact: the id of the store it records (-1: not a store with a known address). */
  private readonly storeOf: Int32Array;
  private readonly stores: RecordedStore[] = [];
  /** Per node: the stores it reaches (null: more than `cap`), and whether it reaches any terminal. */
  private readonly reach: Array<number[] | null | undefined> = [];
  private readonly reachesTerminal: boolean[] = [];
  private readonly explicit = new Map<number, boolean>();
  private readonly prefixes = new Map<number, number[]>();
  private readonly loopLists = new Map<number, number[]>();
  /** Per region from the end: the first `max` stores of the explicit sinks of it and every later region. */
  private suffixes: Array<number[] | undefined> = [];
  private readonly seen = new Stamps();

  constructor(
    private readonly graph: FlowGraph,
    private readonly facts: FunctionFacts,
    private readonly byRegion: Map<number, number[]>,
    private readonly max: number,
  ) {
    const ids = new Map<string, number>();
    this.storeOf = new Int32Array(facts.facts.length).fill(-1);
    facts.facts.forEach((fact, i) => {
      const t = fact.target;
      if (t.kind !== 'store' || t.ptr === null) return;
      const key = JSON.stringify([t.ptr, t.offset]);
      let id = ids.get(key);
      if (id === undefined) {
        id = this.stores.length;
        ids.set(key, id);
        this.stores.push({ ptr: t.ptr, offset: t.offset });
      }
      this.storeOf[i] = id;
    });
  }

  /** The recorded stores of region `index`. */
  recorded(index: number): RecordedStore[] {
    let ids: number[];
    if (this.hasExplicit(index)) ids = this.prefix(index);
    else {
      const region = this.facts.regions[index];
      ids = !region ? [] : region.loop < 0 ? this.suffix(index + 1) : this.loopList(region.loop);
    }
    return ids.map((id) => this.stores[id]!);
  }

  /** Whether the region has explicit sinks at all (then its implicit ones do not count). */
  private hasExplicit(index: number): boolean {
    let has = this.explicit.get(index);
    if (has === undefined) {
      has = (this.byRegion.get(index) ?? []).some((position) => {
        if (this.graph.isTerminal(position)) return true;
        const node = this.graph.targetNode(position);
        return node >= 0 && this.closure(node).terminal;
      });
      this.explicit.set(index, has);
    }
    return has;
  }

  /** The first `max` distinct stores of the region's explicit sinks, in their order. */
  private prefix(index: number): number[] {
    let out = this.prefixes.get(index);
    if (out) return out;
    out = [];
    const listed = new Set<number>();
    for (const position of this.byRegion.get(index) ?? []) {
      if (out.length >= this.max) break;
      if (this.graph.isTerminal(position)) this.list(this.storeOf[position]!, listed, out);
      else {
        const node = this.graph.targetNode(position);
        if (node >= 0) this.walk(node, listed, out);
      }
    }
    this.prefixes.set(index, out);
    return out;
  }

  /** The blame relations' closure walk from `start` (same order), skipping nodes with nothing new. */
  private walk(start: number, listed: Set<number>, out: number[]): void {
    const seen = this.seen.next();
    const stack = [start];
    seen.mark(start);
    while (stack.length > 0 && out.length < this.max) {
      const node = stack.pop()!;
      const reach = this.closure(node).stores;
      if (reach !== null && reach.every((id) => listed.has(id))) continue;
      for (const child of this.graph.children(node)) {
        if (!seen.has(child)) {
          seen.mark(child);
          stack.push(child);
        }
      }
      for (const position of this.graph.terminals(node)) this.list(this.storeOf[position]!, listed, out);
    }
  }

  private list(id: number, listed: Set<number>, out: number[]): void {
    if (id < 0 || listed.has(id) || out.length >= this.max) return;
    listed.add(id);
    out.push(id);
  }

  /** The first `max` distinct stores of the explicit sinks of regions `from`, `from`+1, … to the end. */
  private suffix(from: number): number[] {
    const regions = this.facts.regions.length;
    if (from >= regions) return [];
    if (this.suffixes.length === 0) this.suffixes = new Array<number[] | undefined>(regions);
    let k = from;
    while (k < regions && this.suffixes[k] === undefined) k++;
    for (let j = k - 1; j >= from; j--) {
      const own = this.hasExplicit(j) ? this.prefix(j) : [];
      this.suffixes[j] = this.merge(own, this.suffixes[j + 1] ?? []);
    }
    return this.suffixes[from]!;
  }

  /** The first `max` distinct stores of the explicit sinks of the regions inside `loop`, in region order. */
  private loopList(loop: number): number[] {
    let out = this.loopLists.get(loop);
    if (out) return out;
    out = [];
    for (let k = 0; k < this.facts.regions.length && out.length < this.max; k++) {
      if (!this.insideLoop(this.facts.regions[k]!.loop, loop) || !this.hasExplicit(k)) continue;
      out = this.merge(out, this.prefix(k));
    }
    this.loopLists.set(loop, out);
    return out;
  }

  private merge(first: number[], then: number[]): number[] {
    const out = [...first];
    const listed = new Set(first);
    for (const id of then) this.list(id, listed, out);
    return out;
  }

  private insideLoop(loop: number, outer: number): boolean {
    for (let l = loop; l >= 0; l = this.facts.loopParents[l] ?? -1) if (l === outer) return true;
    return false;
  }

  /**
   * What a node reaches: its stores (capped at `max`: a node reaching more can never be skipped)
   * and whether any terminal. Computed for every node reachable from it, per strongly connected
   * component (Tarjan's algorithm, iterative), each node once.
   */
  private closure(start: number): { stores: number[] | null; terminal: boolean } {
    if (this.reach[start] === undefined) this.tarjan(start);
    return { stores: this.reach[start]!, terminal: this.reachesTerminal[start]! };
  }

  private tarjan(start: number): void {
    const order: number[] = [];
    const low: number[] = [];
    const onStack: boolean[] = [];
    const stack: number[] = [];
    const frames: Array<{ node: number; next: number }> = [];
    let counter = 0;
    const open = (node: number) => {
      order[node] = low[node] = counter++;
      stack.push(node);
      onStack[node] = true;
      frames.push({ node, next: 0 });
    };
    open(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const children = this.graph.children(frame.node);
      if (frame.next < children.length) {
        const child = children[frame.next++]!;
        if (this.reach[child] !== undefined) continue;
        if (order[child] === undefined) open(child);
        else if (onStack[child]) low[frame.node] = Math.min(low[frame.node]!, order[child]!);
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low[parent.node] = Math.min(low[parent.node]!, low[frame.node]!);
      if (low[frame.node] !== order[frame.node]) continue;
      const members: number[] = [];
      let member: number;
      do {
        member = stack.pop()!;
        onStack[member] = false;
        members.push(member);
      } while (member !== frame.node);
      this.close(members);
    }
  }

  /** One component's reach: its members' own terminals and what their children outside it reach. */
  private close(members: number[]): void {
    let stores: number[] | null = [];
    let terminal = false;
    const inside = new Set(members);
    const add = (id: number) => {
      if (stores === null || id < 0 || stores.includes(id)) return;
      if (stores.length >= this.max) stores = null;
      else stores.push(id);
    };
    for (const node of members) {
      for (const position of this.graph.terminals(node)) {
        terminal = true;
        add(this.storeOf[position]!);
      }
      for (const child of this.graph.children(node)) {
        if (inside.has(child)) continue;
        const reach = this.reach[child];
        if (this.reachesTerminal[child]) terminal = true;
        if (reach === null) stores = null;
        else for (const id of reach ?? []) add(id);
      }
    }
    for (const node of members) {
      this.reach[node] = stores;
      this.reachesTerminal[node] = terminal;
    }
  }
}

/** Per-walk marks over node ids without clearing: a mark is the walk's number. */
class Stamps {
  private marks = new Int32Array(1024);
  private current = 0;

  next(): this {
    this.current++;
    return this;
  }

  mark(node: number): void {
    if (node >= this.marks.length) {
      const grown = new Int32Array(Math.max(node + 1, this.marks.length * 2));
      grown.set(this.marks);
      this.marks = grown;
    }
    this.marks[node] = this.current;
  }

  has(node: number): boolean {
    return this.marks[node] === this.current;
  }
}
