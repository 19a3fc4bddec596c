// The flow graph behind the blame relations (blame-relations.ts), built once per function and
// expanded on demand. A node is a value at a place: a source (local `l3`, call result `c5`, grow
// `g0`) defined in a region. Its edges are the facts that read the source in code that can run
// after the definition (later in the function, or in a loop enclosing both) and that no fresh
// definition of the local cuts off in between: to another node (a local written, or a call's
// result when the value is passed to it) or to a terminal (an exit variable). Each node's edges
// are computed once, and whether a fresh definition cuts a flow off is a range query over the
// local's definitions sorted by place, so the closures walked from every definition of a large
// function stay near-linear in its facts instead of rescanning every use and definition per walk.
import type { FlowFact, FunctionFacts } from './flow-facts.js';

/** Where a fact sends a value: the node's source (an id of `sourceId`), a terminal, or nothing (a condition). */
const NOWHERE = -1;
const NO_POSITION = Number.MAX_SAFE_INTEGER;

interface LocalDefinitions {
  /** Fresh definitions (facts writing the local without reading it): their positions, sorted. */
  positions: Int32Array;
  /** Per prefix: how many of those sit outside every loop. */
  outsideLoops: Int32Array;
  /** Per innermost loop: the indices (into the sorted order) of the definitions in it. */
  byLoop: Map<number, number[]>;
}

export class FlowGraph {
  private readonly sourceIds = new Map<string, number>();
  /** Per source id: the local it is (-1 for call results and grows), and the facts reading it. */
  private readonly sourceLocal: number[] = [];
  private readonly readers: number[][] = [];
  /** Per fact: the source id of the node it writes (NOWHERE for terminals and conditions). */
  private readonly targetSource: Int32Array;
  /** Per fact: whether its target is a terminal (an exit variable). */
  private readonly terminal: Uint8Array;
  private readonly nodeIds = new Map<number, number>();
  private readonly nodeSource: number[] = [];
  private readonly nodeRegion: number[] = [];
  /** Per node, once expanded: the nodes its value flows to and the terminal facts it reaches, in fact order. */
  private readonly nodeChildren: Array<number[] | undefined> = [];
  private readonly nodeTerminals: Array<number[] | undefined> = [];
  private readonly definitions = new Map<number, LocalDefinitions>();
  private readonly freshDefs = new Map<number, number[]>();
  /** Per loop: its outermost enclosing loop. */
  private readonly outermost: Int32Array;
  /**
   * Per region: the positions of its facts, in order. A region's code need not be contiguous: code
   * after a construct nothing escapes from continues the region before it, so a region's later
   * facts can follow regions of higher index (an `if` chain's arms, then the function's tail).
   */
  private readonly regionPositions: number[][] = [];

  constructor(
    readonly facts: FunctionFacts,
    callResults: Set<string>,
  ) {
    const list = facts.facts;
    this.targetSource = new Int32Array(list.length).fill(NOWHERE);
    this.terminal = new Uint8Array(list.length);
    list.forEach((fact, i) => {
      (this.regionPositions[fact.region] ??= []).push(i);
      for (const source of fact.sources) this.readers[this.sourceId(source)]!.push(i);
      const t = fact.target;
      if (t.kind === 'local') {
        this.targetSource[i] = this.sourceId(`l${t.local}`);
        if (!fact.sources.includes(`l${t.local}`)) {
          let defs = this.freshDefs.get(t.local);
          if (!defs) this.freshDefs.set(t.local, (defs = []));
          defs.push(i);
        }
      } else if (t.kind === 'arg' && callResults.has(`c${t.call}`)) {
        // Without the callee's own relations here, a value passed in is assumed to come back in
        // its result (the paper's heuristic for calls without a transfer function).
        this.targetSource[i] = this.sourceId(`c${t.call}`);
      } else if (t.kind !== 'cond') this.terminal[i] = 1;
    });
    this.outermost = new Int32Array(facts.loopParents.length);
    facts.loopParents.forEach((_, loop) => {
      let top = loop;
      for (let l = loop; l >= 0; l = facts.loopParents[l] ?? -1) top = l;
      this.outermost[loop] = top;
    });
    this.laterStart = new Float64Array(this.regionPositions.length + 1).fill(NO_POSITION);
    for (let r = this.regionPositions.length - 1; r >= 0; r--)
      this.laterStart[r] = Math.min(this.laterStart[r + 1]!, this.regionPositions[r]?.[0] ?? NO_POSITION);
    list.forEach((fact, i) => {
      const loop = facts.regions[fact.region]?.loop ?? -1;
      if (loop < 0) return;
      const outer = this.outermostLoop(loop);
      const span = this.loopSpans.get(outer);
      if (span) span.last = i;
      else this.loopSpans.set(outer, { first: i, last: i });
    });
  }

  /** Per region: the first position of any fact of it or of a later region (NO_POSITION: none). */
  private readonly laterStart: Float64Array;
  /** Per outermost loop: the first and last positions of its regions' facts. */
  private readonly loopSpans = new Map<number, { first: number; last: number }>();

  /** The node of `source` defined in `region`. */
  node(source: string, region: number): number {
    return this.nodeOf(this.sourceId(source), region);
  }

  /** The node a fact writes (a local or a call's result), or -1 when its target is a terminal or a condition. */
  targetNode(position: number): number {
    const source = this.targetSource[position]!;
    return source === NOWHERE ? -1 : this.nodeOf(source, this.facts.facts[position]!.region);
  }

  isTerminal(position: number): boolean {
    return this.terminal[position] === 1;
  }

  /** The nodes a node's value flows to, in fact order. */
  children(node: number): number[] {
    this.expand(node);
    return this.nodeChildren[node]!;
  }

  /** The terminal facts a node's value reaches directly, in fact order. */
  terminals(node: number): number[] {
    this.expand(node);
    return this.nodeTerminals[node]!;
  }

  get nodeCount(): number {
    return this.nodeSource.length;
  }

  /** Whether code of region `later` can run after code of region `earlier` (walk order, or a shared loop). */
  mayFollow(earlier: number, later: number): boolean {
    return later >= earlier || this.shareLoop(earlier, later);
  }

  /**
   * Whether a value defined in region `from` can reach the fact at `position` in region `region`:
   * a later region, a shared loop, or code placed after the region's start (its own continuation,
   * or the continuation of an enclosing region after the construct holding `from`).
   */
  private mayReach(from: number, region: number, position: number): boolean {
    return this.mayFollow(from, region) || position > (this.regionPositions[from]?.[0] ?? Number.MAX_SAFE_INTEGER);
  }

  private sourceId(source: string): number {
    let id = this.sourceIds.get(source);
    if (id === undefined) {
      id = this.readers.length;
      this.sourceIds.set(source, id);
      this.readers.push([]);
      this.sourceLocal.push(source.startsWith('l') ? Number(source.slice(1)) : -1);
    }
    return id;
  }

  private nodeOf(source: number, region: number): number {
    // Regions and sources stay far below 2^26: the key is exact in a double.
    const key = source * 0x4000000 + region;
    let id = this.nodeIds.get(key);
    if (id === undefined) {
      id = this.nodeSource.length;
      this.nodeIds.set(key, id);
      this.nodeSource.push(source);
      this.nodeRegion.push(region);
      this.nodeChildren.push(undefined);
      this.nodeTerminals.push(undefined);
    }
    return id;
  }

  private expand(node: number): void {
    if (this.nodeChildren[node] !== undefined) return;
    const source = this.nodeSource[node]!;
    const region = this.nodeRegion[node]!;
    const local = this.sourceLocal[source]!;
    const children: number[] = [];
    const terminals: number[] = [];
    const readers = this.readers[source]!;
    const { first, last } = this.readerSpan(region, local);
    for (let k = firstAtLeast(readers, first); k < readers.length; k++) {
      const position = readers[k]!;
      if (position > last) break;
      const fact = this.facts.facts[position]!;
      if (!this.mayReach(region, fact.region, position)) continue;
      if (local >= 0 && this.killedBetween(local, region, fact, position)) continue;
      const target = this.targetSource[position]!;
      if (target !== NOWHERE) children.push(this.nodeOf(target, fact.region));
      else if (this.terminal[position] === 1) terminals.push(position);
    }
    this.nodeChildren[node] = children;
    this.nodeTerminals[node] = terminals;
  }

  /**
   * The positions outside which no reader of a node's value can take it (the same readers as the
   * whole list filtered by mayReach and killedBetween, without scanning a long-lived local's every
   * use from each of its definitions): before `first` a reader is in neither a later region, nor a
   * shared loop, nor after the region's start; after `last` a fresh definition outside every loop,
   * past the region's and its loop's facts, cuts every flow from it off.
   */
  private readerSpan(from: number, local: number): { first: number; last: number } {
    let first = this.laterStart[Math.min(from, this.laterStart.length - 1)] ?? NO_POSITION;
    let end = this.regionPositions[from]?.at(-1) ?? -1;
    const loop = this.facts.regions[from]?.loop ?? -1;
    const span = loop >= 0 ? this.loopSpans.get(this.outermostLoop(loop)) : undefined;
    if (span) {
      first = Math.min(first, span.first);
      end = Math.max(end, span.last);
    }
    const defs = local >= 0 ? this.definitionsOf(local) : null;
    return { first, last: defs ? firstOutsideLoopsAfter(defs, end) : NO_POSITION };
  }

  /**
   * A forward flow (no loop shared) is cut by a fresh definition of the local after region `from`
   * and before the use that the use's region cannot bypass: at the outer level, or in a loop
   * enclosing the use.
   */
  private killedBetween(local: number, from: number, use: FlowFact, usePosition: number): boolean {
    if (use.region === from || this.shareLoop(from, use.region)) return false;
    const defs = this.definitionsOf(local);
    if (!defs) return false;
    // Between the region's last fact before the use and the use, in placement order.
    const lo = firstAfter(defs.positions, lastBefore(this.regionPositions[from] ?? [], usePosition));
    const hi = firstAfter(defs.positions, usePosition);
    if (lo >= hi) return false;
    if (defs.outsideLoops[hi]! - defs.outsideLoops[lo]! > 0) return true;
    for (let loop = this.facts.regions[use.region]?.loop ?? -1; loop >= 0; loop = this.facts.loopParents[loop] ?? -1) {
      const inLoop = defs.byLoop.get(loop);
      if (inLoop && (inLoop[firstAtLeast(inLoop, lo)] ?? hi) < hi) return true;
    }
    return false;
  }

  private definitionsOf(local: number): LocalDefinitions | null {
    let defs = this.definitions.get(local);
    if (defs) return defs;
    const positions = this.freshDefs.get(local);
    if (!positions) return null;
    const facts = this.facts.facts;
    const sorted = [...positions].sort((a, b) => a - b);
    const outsideLoops = new Int32Array(sorted.length + 1);
    const byLoop = new Map<number, number[]>();
    sorted.forEach((position, i) => {
      const loop = this.facts.regions[facts[position]!.region]?.loop ?? -1;
      outsideLoops[i + 1] = outsideLoops[i]! + (loop === -1 ? 1 : 0);
      if (loop >= 0) {
        let list = byLoop.get(loop);
        if (!list) byLoop.set(loop, (list = []));
        list.push(i);
      }
    });
    defs = {
      positions: Int32Array.from(sorted),
      outsideLoops,
      byLoop,
    };
    this.definitions.set(local, defs);
    return defs;
  }

  /** Whether some loop encloses both regions: loops nest as a forest, so whether their outermost loops are one. */
  shareLoop(a: number, b: number): boolean {
    const la = this.facts.regions[a]?.loop ?? -1;
    const lb = this.facts.regions[b]?.loop ?? -1;
    return la >= 0 && lb >= 0 && this.outermostLoop(la) === this.outermostLoop(lb);
  }

  private outermostLoop(loop: number): number {
    return loop < this.outermost.length ? this.outermost[loop]! : loop;
  }
}

/** The index of the first value of a sorted array above `value`. */
function firstAfter(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last value of a sorted list below `value`, -1 when none is. */
function lastBefore(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sorted[lo - 1]! : -1;
}

/** The first index of a sorted list holding a value of at least `value`. */
function firstAtLeast(list: number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The position of the first fresh definition outside every loop after `position` (NO_POSITION: none). */
function firstOutsideLoopsAfter(defs: LocalDefinitions, position: number): number {
  const from = firstAfter(defs.positions, position);
  const before = defs.outsideLoops[from]!;
  // The first definition j >= from with outsideLoops[j + 1] > before (the counts never fall).
  let lo = from;
  let hi = defs.positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (defs.outsideLoops[mid + 1]! > before) hi = mid;
    else lo = mid + 1;
  }
  return lo < defs.positions.length ? defs.positions[lo]! : NO_POSITION;
}
