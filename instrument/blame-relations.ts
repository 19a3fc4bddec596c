// Static blame relations of one function (Rutar & Hollingsworth §2.1), from its flow facts: what a
// region's work ends up in. Explicit flow follows values through locals to the function's exit
// variables — stores (memory containers), globals, the result and call arguments. A region whose
// values end only in locals that steer control (loop counters, flags, pointer bumps) gets implicit
// blame: it is charged to what the rest of its loop computes, the work those variables control.
// The sampling pass evaluates them at instrumentation time (which stores a sample records the
// addresses of) and the blame analysis at analysis time, so they sit in instrument/, the lower layer.
import type { AddressAst, FlowFact, FlowTarget, FunctionFacts } from './flow-facts.js';
import { localSource } from './flow-facts.js';

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
  /** Per local: positions (fact indices) of definitions that do not read the local itself. */
  private readonly freshDefs = new Map<number, number[]>();
  private readonly position = new Map<FlowFact, number>();
  private readonly callResults = new Set<string>();
  /** Facts by the region they belong to, in order. */
  private readonly byRegion = new Map<number, FlowFact[]>();

  constructor(readonly facts: FunctionFacts) {
    facts.facts.forEach((fact, i) => {
      this.position.set(fact, i);
      let inRegion = this.byRegion.get(fact.region);
      if (!inRegion) this.byRegion.set(fact.region, (inRegion = []));
      inRegion.push(fact);
      if (fact.target.kind === 'local' && !fact.sources.includes(localSource(fact.target.local))) {
        let list = this.freshDefs.get(fact.target.local);
        if (!list) this.freshDefs.set(fact.target.local, (list = []));
        list.push(i);
      }
      for (const source of fact.sources) if (source.startsWith('c')) this.callResults.add(source);
    });
    for (const fact of facts.facts) {
      for (const source of fact.sources) {
        let list = this.bySource.get(source);
        if (!list) this.bySource.set(source, (list = []));
        list.push(fact);
      }
    }
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
    const seen = new Set<string>([key]);
    const out = new Map<string, Terminal>();
    const queue: Array<[string, number, number]> = [[start, from, -1]];
    while (queue.length > 0) {
      const [source, region, at] = queue.pop()!;
      const l = source.startsWith('l') ? Number(source.slice(1)) : -1;
      for (const fact of this.bySource.get(source) ?? []) {
        if (!this.mayFollow(region, fact.region)) continue;
        if (l >= 0 && this.killedBetween(l, region, at, fact)) continue;
        const t = fact.target;
        const position = this.position.get(fact)!;
        if (t.kind === 'local') {
          const next = `${t.local}:${fact.region}`;
          if (!seen.has(next)) {
            seen.add(next);
            queue.push([localSource(t.local), fact.region, position]);
          }
        } else if (t.kind === 'arg' && this.callResults.has(`c${t.call}`)) {
          // Without the callee's own relations here, a value passed in is assumed to come back in
          // its result (the paper's heuristic for calls without a transfer function).
          const next = `c${t.call}:${fact.region}`;
          if (!seen.has(next)) {
            seen.add(next);
            queue.push([`c${t.call}`, fact.region, position]);
          }
        } else if (t.kind !== 'cond') out.set(this.targetKey(position), t);
      }
    }
    const result = [...out.values()];
    this.closures.set(key, result);
    return result;
  }

  /**
   * A forward flow (no loop shared) is cut by a fresh definition of the local between the two
   * regions that the use's region cannot bypass: at the outer level, or in a loop enclosing the use.
   */
  private killedBetween(local: number, from: number, fromPosition: number, use: FlowFact): boolean {
    if (use.region <= from || this.shareLoop(from, use.region)) return false;
    const usePosition = this.position.get(use)!;
    for (const position of this.freshDefs.get(local) ?? []) {
      const def = this.facts.facts[position]!;
      if (def.region < from || def.region > use.region || (def.region === from && position < fromPosition)) continue;
      if (def.region === use.region && position > usePosition) continue;
      if (def.region === from) continue;
      const loop = this.facts.regions[def.region]?.loop ?? -1;
      if (loop === -1 || this.insideLoop(this.facts.regions[use.region]?.loop ?? -1, loop)) return true;
    }
    return false;
  }

  /** Whether some loop encloses both regions: loops nest as a forest, so whether their outermost loops are one. */
  private shareLoop(a: number, b: number): boolean {
    const la = this.facts.regions[a]?.loop ?? -1;
    const lb = this.facts.regions[b]?.loop ?? -1;
    return la >= 0 && lb >= 0 && this.outermostLoop(la) === this.outermostLoop(lb);
  }

  /** Per loop: its outermost enclosing loop plus one (0: not computed yet). */
  private outermost: Int32Array = new Int32Array(0);

  private outermostLoop(loop: number): number {
    if (this.outermost.length === 0) this.outermost = new Int32Array(this.facts.loopParents.length + 1);
    let top = (this.outermost[loop] ?? 0) - 1;
    if (top < 0) {
      top = loop;
      for (let l = loop; l >= 0; l = this.facts.loopParents[l] ?? -1) top = l;
      if (loop < this.outermost.length) this.outermost[loop] = top + 1;
    }
    return top;
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
    return later >= earlier || this.shareLoop(earlier, later);
  }

  private readonly blames = new Map<number, RegionBlame>();

  /** What the work of region `index` (function-local) is charged to. */
  regionBlame(index: number): RegionBlame {
    let blame = this.blames.get(index);
    if (!blame) {
      const explicit = this.explicitSinks(index);
      if (explicit.length > 0) blame = { sinks: explicit.map(([, sink]) => sink), implicit: false };
      else {
        const out = new Map<string, Sink>();
        for (const [key, sink] of this.implicitSinks(index)) if (!out.has(key)) out.set(key, sink);
        blame = { sinks: [...out.values()], implicit: true };
      }
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
    const explicit = this.explicitSinks(index);
    const sinks = explicit.length > 0 ? explicit : this.implicitSinks(index);
    const out = new Map<string, { ptr: AddressAst; offset: number }>();
    for (const [, sink] of sinks) {
      if (out.size >= max) break;
      if (sink.kind !== 'store' || sink.ptr === null) continue;
      const key = JSON.stringify([sink.ptr, sink.offset]);
      if (!out.has(key)) out.set(key, { ptr: sink.ptr, offset: sink.offset });
    }
    return [...out.values()];
  }

  /**
   * Implicit blame: outside loops a branch steers the code after it; inside, the rest of its loop.
   * The explicit sinks of those regions in region order, repeats included (callers keep the first).
   */
  private *implicitSinks(index: number): Generator<[string, Sink]> {
    const region = this.facts.regions[index];
    if (!region) return;
    for (let k = region.loop < 0 ? index + 1 : 0; k < this.facts.regions.length; k++) {
      if (k === index || (region.loop >= 0 && !this.insideLoop(this.facts.regions[k]!.loop, region.loop))) continue;
      yield* this.explicitSinks(k);
    }
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
    const cached = this.explicit.get(index);
    if (cached) return cached;
    const out = new Map<string, Sink>();
    for (const fact of this.byRegion.get(index) ?? []) {
      const t = fact.target;
      if (t.kind === 'cond') continue;
      const terminals =
        t.kind === 'local'
          ? this.localSinks(t.local, index)
          : t.kind === 'arg' && this.callResults.has(`c${t.call}`)
            ? this.sinksFrom(`c${t.call}`, index)
            : [t];
      for (const terminal of terminals) {
        const key = JSON.stringify(terminal);
        if (!out.has(key)) out.set(key, terminal);
      }
    }
    const result = [...out];
    this.explicit.set(index, result);
    return result;
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
