// Static blame relations of one function (Rutar & Hollingsworth §2.1), from its flow facts: what a
// region's work ends up in. Explicit flow follows values through locals to the function's exit
// variables — stores (memory containers), globals, the result and call arguments. A region whose
// values end only in locals that steer control (loop counters, flags, pointer bumps) gets implicit
// blame: it is charged to what the rest of its loop computes, the work those variables control.
// The sampling pass evaluates them at instrumentation time (which stores a sample records the
// addresses of) and the blame analysis at analysis time, so they sit in instrument/, the lower layer.
import type { AddressAst, FlowFact, FlowTarget, FunctionFacts } from './flow-facts.js';
import { localSource } from './flow-facts.js';
import { FlowGraph } from './flow-graph.js';
import { RecordedStoreFinder } from './recorded-stores.js';

export type Sink =
  | { kind: 'store'; ptr: AddressAst; offset: number; bytes: number }
  | { kind: 'global'; name: string }
  | { kind: 'return' }
  | { kind: 'arg'; call: number; arg: number };

export interface RegionBlame {
  sinks: Sink[];
  /** The sinks came from the region's loop (implicit flow), not from what the region writes. */
  implicit: boolean;
}

type Terminal = Exclude<FlowTarget, { kind: 'local' } | { kind: 'cond' }>;

export class FunctionRelations {
  /** Facts by the source they read. */
  private readonly bySource = new Map<string, FlowFact[]>();
  private readonly closures = new Map<string, Terminal[]>();
  private readonly callResults = new Set<string>();
  /** Fact positions by the region they belong to, in order. */
  private readonly byRegion = new Map<number, number[]>();
  private readonly graph: FlowGraph;
  private readonly finders = new Map<number, RecordedStoreFinder>();
  private readonly seen = new Set<number>();

  constructor(readonly facts: FunctionFacts) {
    facts.facts.forEach((fact, i) => {
      let inRegion = this.byRegion.get(fact.region);
      if (!inRegion) this.byRegion.set(fact.region, (inRegion = []));
      inRegion.push(i);
      for (const source of fact.sources) {
        if (source.startsWith('c')) this.callResults.add(source);
        let list = this.bySource.get(source);
        if (!list) this.bySource.set(source, (list = []));
        list.push(fact);
      }
    });
    this.graph = new FlowGraph(facts, this.callResults);
  }

  /**
   * Exit variables a local's value, defined in region `from`, reaches through other locals. Wasm
   * locals are reused for unrelated variables, so a flow only counts into code that can run after
   * the definition: later in the function, or anywhere in a loop that encloses both.
   */
  localSinks(local: number, from: number): Terminal[] {
    return this.sinksFrom(localSource(local), from);
  }

  /** Exit variables reached from a local or a call result (`c5`) defined in region `from`. */
  sinksFrom(start: string, from: number): Terminal[] {
    const key = `${start}:${from}`;
    const cached = this.closures.get(key);
    if (cached) return cached;
    const result = this.walk(this.graph.node(start, from));
    this.closures.set(key, result);
    return result;
  }

  /** The terminals reached from a node, in the order of a depth-first walk that marks nodes when it first sees them. */
  private walk(start: number): Terminal[] {
    this.seen.clear();
    const out = new Map<string, Terminal>();
    this.visit(start, (position) => out.set(this.targetKey(position), this.facts.facts[position]!.target as Terminal));
    return [...out.values()];
  }

  /** The depth-first walk from `start` over nodes not in `seen` (marked as it goes): each terminal fact reached, in walk order. */
  private visit(start: number, reach: (position: number) => void): void {
    const seen = this.seen;
    const stack = [start];
    seen.add(start);
    while (stack.length > 0) {
      const node = stack.pop()!;
      for (const child of this.graph.children(node)) {
        if (!seen.has(child)) {
          seen.add(child);
          stack.push(child);
        }
      }
      for (const position of this.graph.terminals(node)) reach(position);
    }
  }

  private readonly targetKeys: Array<string | undefined> = [];

  /** The JSON of fact `position`'s target: sinks are deduplicated by it. */
  private targetKey(position: number): string {
    let key = this.targetKeys[position];
    if (key === undefined) this.targetKeys[position] = key = JSON.stringify(this.facts.facts[position]!.target);
    return key;
  }

  /** Whether code of region `later` can run after code of region `earlier` (walk order, or a shared loop). */
  mayFollow(earlier: number, later: number): boolean {
    return this.graph.mayFollow(earlier, later);
  }

  private readonly blames = new Map<number, RegionBlame>();

  /** What the work of region `index` (function-local) is charged to. */
  regionBlame(index: number): RegionBlame {
    let blame = this.blames.get(index);
    if (!blame) {
      const explicit = this.explicitSinks(index);
      blame =
        explicit.length > 0
          ? { sinks: explicit.map(([, sink]) => sink), implicit: false }
          : { sinks: this.implicitSinks(index), implicit: true };
      this.blames.set(index, blame);
    }
    return blame;
  }

  /**
   * The store sinks of region `index` whose addresses a sample records: the first `max` distinct
   * (pointer, offset) pairs of its blame, in order. The same as `recordedStores(regionBlame(index))`
   * without building the whole blame of a region that has none of its own (the rest of a large
   * function): the sampling pass asks this of every region.
   */
  recordedStores(index: number, max: number): Array<{ ptr: AddressAst; offset: number }> {
    const cached = this.blames.get(index);
    if (cached) return recordedStores(cached, max);
    let finder = this.finders.get(max);
    if (!finder) this.finders.set(max, (finder = new RecordedStoreFinder(this.graph, this.facts, this.byRegion, max)));
    return finder.recorded(index);
  }

  /** Per loop: the implicit sinks of its regions (one list, shared by every region of the loop). */
  private readonly loopSinks = new Map<number, Sink[]>();
  /** Per region outside loops without sinks of its own: the implicit sinks (the explicit sinks of every later region). */
  private readonly laterSinks = new Map<number, Sink[]>();

  /**
   * Implicit blame: outside loops a branch steers the code after it; inside, the rest of its loop.
   * The explicit sinks of those regions in region order, each sink where it first appears. Only a
   * region without sinks of its own asks, so the region itself adds nothing: every region of a loop
   * gets the same list.
   */
  private implicitSinks(index: number): Sink[] {
    const region = this.facts.regions[index];
    if (!region) return [];
    const loop = region.loop;
    const cache = loop >= 0 ? this.loopSinks : this.laterSinks;
    const key = loop >= 0 ? loop : index;
    let sinks = cache.get(key);
    if (!sinks) {
      const regions: number[] = [];
      for (let k = loop < 0 ? index + 1 : 0; k < this.facts.regions.length; k++)
        if (loop < 0 || this.insideLoop(this.facts.regions[k]!.loop, loop)) regions.push(k);
      cache.set(key, (sinks = [...this.sinksOfRegions(regions).values()]));
    }
    return sinks;
  }

  /** Exit variables a call's result (`c5`, `g0`) reaches, from the region of the call. */
  resultSinks(source: string): Terminal[] {
    const first = this.bySource.get(source)?.[0];
    return first ? this.sinksFrom(source, first.region) : [];
  }

  /** Locals that directly receive a call's result, and stores that write it (a struct field). */
  receivers(source: string): {
    locals: number[];
    stores: Array<{ ptr: AddressAst; offset: number; base: number | null }>;
    returned: boolean;
  } {
    const locals: number[] = [];
    const stores: Array<{ ptr: AddressAst; offset: number; base: number | null }> = [];
    let returned = false;
    for (const fact of this.bySource.get(source) ?? []) {
      if (fact.target.kind === 'local') locals.push(fact.target.local);
      else if (fact.target.kind === 'store')
        stores.push({ ptr: fact.target.ptr, offset: fact.target.offset, base: fact.target.base ?? null });
      else if (fact.target.kind === 'return') returned = true;
    }
    return { locals, stores, returned };
  }

  /** Call arguments a local's value is passed as (directly or through other locals). */
  argumentsOf(local: number, call: number): number[] {
    const args = new Set<number>();
    const seen = new Set<number>([local]);
    const queue = [local];
    while (queue.length > 0) {
      const l = queue.pop()!;
      for (const fact of this.bySource.get(localSource(l)) ?? []) {
        if (fact.target.kind === 'arg' && fact.target.call === call) args.add(fact.target.arg);
        else if (fact.target.kind === 'local' && !seen.has(fact.target.local)) {
          seen.add(fact.target.local);
          queue.push(fact.target.local);
        }
      }
    }
    return [...args];
  }

  /** Locals whose value is passed as argument `arg` of call `call`. */
  argumentSources(call: number, arg: number): number[] {
    const out: number[] = [];
    for (const fact of this.facts.facts) {
      if (fact.target.kind === 'arg' && fact.target.call === call && fact.target.arg === arg) {
        for (const s of fact.sources) if (s.startsWith('l')) out.push(Number(s.slice(1)));
      }
    }
    return out;
  }

  private readonly explicit = new Map<number, Array<[string, Sink]>>();

  /** What region `index` writes (through locals, to the function's exit variables), deduplicated, with each sink's key. */
  private explicitSinks(index: number): Array<[string, Sink]> {
    let sinks = this.explicit.get(index);
    if (!sinks) this.explicit.set(index, (sinks = [...this.sinksOfRegions([index])]));
    return sinks;
  }

  /**
   * The explicit sinks of `regions` (in order) by key, each where it first appears: the closures of
   * their facts' values in fact order, walked with one set of seen nodes. A node an earlier closure
   * reached adds nothing new (all it reaches was listed then) and takes no place in the order of
   * what is new, so this is the concatenation of every closure, deduplicated, without walking a
   * shared part twice: one walk for a whole loop, not one per fact of each of its regions.
   */
  private sinksOfRegions(regions: number[]): Map<string, Sink> {
    const out = new Map<string, Sink>();
    const add = (position: number) => {
      const key = this.targetKey(position);
      if (!out.has(key)) out.set(key, this.facts.facts[position]!.target as Terminal);
    };
    this.seen.clear();
    for (const region of regions) {
      for (const position of this.byRegion.get(region) ?? []) {
        const t = this.facts.facts[position]!.target;
        if (t.kind === 'cond') continue;
        const start =
          t.kind === 'local'
            ? this.graph.node(localSource(t.local), region)
            : t.kind === 'arg' && this.callResults.has(`c${t.call}`)
              ? this.graph.node(`c${t.call}`, region)
              : -1;
        if (start < 0) add(position);
        else if (!this.seen.has(start)) this.visit(start, add);
      }
    }
    return out;
  }

  private insideLoop(loop: number, outer: number): boolean {
    for (let l = loop; l >= 0; l = this.facts.loopParents[l] ?? -1) if (l === outer) return true;
    return false;
  }
}

/** The store sinks of a region whose addresses the sample records (the first `max`, deduplicated). */
export function recordedStores(blame: RegionBlame, max: number): Array<{ ptr: AddressAst; offset: number }> {
  const out = new Map<string, { ptr: AddressAst; offset: number }>();
  for (const sink of blame.sinks) {
    if (sink.kind !== 'store' || sink.ptr === null) continue;
    const key = JSON.stringify([sink.ptr, sink.offset]);
    if (!out.has(key) && out.size < max) out.set(key, { ptr: sink.ptr, offset: sink.offset });
  }
  return [...out.values()];
}
