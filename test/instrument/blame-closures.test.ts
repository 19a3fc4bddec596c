// The blame relations' flow closures (instrument/flow-graph.ts) and the sampling pass's recorded
// stores (instrument/recorded-stores.ts) against the plain definition on random functions: a walk
// from each definition over every fact that reads the value in code that can run after it (a later
// region, a shared loop, or code placed after the start of the value's region) and that
// no fresh definition in between cuts off, its terminals in the order the walk first meets them.
// The recorded stores must be the first ones of the region's full blame, in the same order (the
// instrumented bytes depend on it).
import { expect, test } from 'vitest';
import { FunctionRelations, recordedStores } from '../../instrument/blame-relations.js';
import type { FlowFact, FlowTarget, FunctionFacts } from '../../instrument/flow-facts.js';
import { rng } from '../../bench/model/synthetic.js';

/** A random function: regions in order (with continuations of earlier ones), nested loops over runs of regions, few locals reused often. */
function randomFacts(seed: number): FunctionFacts {
  const next = rng(seed);
  const pick = (n: number) => Math.floor(next() * n);
  const regionCount = 3 + pick(16);
  const loopParents: number[] = [];
  const regions: FunctionFacts['regions'] = [];
  const open: number[] = [];
  for (let r = 0; r < regionCount; r++) {
    const step = next();
    if (step < 0.15) {
      loopParents.push(open.at(-1) ?? -1);
      open.push(loopParents.length - 1);
    } else if (open.length > 0 && step < 0.3) open.pop();
    regions.push({ id: r, loop: open.at(-1) ?? -1, instructions: 1 });
  }
  const locals = 2 + pick(6);
  const calls = 3;
  const facts: FlowFact[] = [];
  for (let r = 0; r < regionCount; r++) {
    // Now and then the facts continue an earlier region (code after an `if` chain continues the region before it).
    const region = r > 0 && next() < 0.25 ? pick(r) : r;
    for (let k = pick(5); k > 0; k--) {
      const sources = new Set<string>();
      for (let s = pick(3); s > 0; s--) sources.add(next() < 0.8 ? `l${pick(locals)}` : `c${pick(calls)}`);
      const kind = next();
      const target: FlowTarget =
        kind < 0.5
          ? { kind: 'local', local: pick(locals) }
          : kind < 0.7
            ? { kind: 'store', ptr: next() < 0.2 ? null : { l: pick(locals) }, offset: 4 * pick(5), bytes: 4 }
            : kind < 0.8
              ? { kind: 'arg', call: pick(calls), arg: pick(2) }
              : kind < 0.85
                ? { kind: 'global', name: `g${pick(2)}` }
                : kind < 0.9
                  ? { kind: 'return' }
                  : { kind: 'cond' };
      facts.push({ region, target, sources: [...sources] });
    }
  }
  return { index: 0, params: 1, localNames: [], facts, regions, loopParents, callees: [], grows: [], stackLocals: [] };
}

/** The closure by its definition: one walk per start over all facts, nothing shared between walks. */
function referenceSinks(facts: FunctionFacts, start: string, from: number): string[] {
  const list = facts.facts;
  const outermost = (loop: number) => {
    let top = loop;
    for (let l = loop; l >= 0; l = facts.loopParents[l] ?? -1) top = l;
    return top;
  };
  const loopOf = (region: number) => facts.regions[region]?.loop ?? -1;
  const shareLoop = (a: number, b: number) =>
    loopOf(a) >= 0 && loopOf(b) >= 0 && outermost(loopOf(a)) === outermost(loopOf(b));
  const encloses = (outer: number, loop: number) => {
    for (let l = loop; l >= 0; l = facts.loopParents[l] ?? -1) if (l === outer) return true;
    return false;
  };
  const callResults = new Set(list.flatMap((f) => f.sources.filter((s) => s.startsWith('c'))));
  const positionsOf = (region: number) => list.flatMap((f, i) => (f.region === region ? [i] : []));
  // Code placed after the start of the value's region can follow it (the region's continuation).
  const mayReach = (from: number, use: FlowFact, usePosition: number) =>
    use.region >= from || shareLoop(from, use.region) || usePosition > (positionsOf(from)[0] ?? Infinity);
  const killed = (local: number, fromRegion: number, use: FlowFact, usePosition: number) => {
    if (use.region === fromRegion || shareLoop(fromRegion, use.region)) return false;
    // A fresh definition placed after the value's region's last fact before the use, and before the use.
    const after = Math.max(-1, ...positionsOf(fromRegion).filter((p) => p < usePosition));
    return list.some((def, position) => {
      if (def.target.kind !== 'local' || def.target.local !== local || def.sources.includes(`l${local}`)) return false;
      if (position <= after || position >= usePosition) return false;
      return loopOf(def.region) === -1 || encloses(loopOf(def.region), loopOf(use.region));
    });
  };
  const out = new Map<string, true>();
  const seen = new Set([`${start}:${from}`]);
  const stack: Array<[string, number]> = [[start, from]];
  while (stack.length > 0) {
    const [source, region] = stack.pop()!;
    const local = source.startsWith('l') ? Number(source.slice(1)) : -1;
    list.forEach((fact, position) => {
      if (!fact.sources.includes(source)) return;
      if (!mayReach(region, fact, position)) return;
      if (local >= 0 && killed(local, region, fact, position)) return;
      const t = fact.target;
      const next =
        t.kind === 'local' ? `l${t.local}` : t.kind === 'arg' && callResults.has(`c${t.call}`) ? `c${t.call}` : null;
      if (next !== null) {
        if (!seen.has(`${next}:${fact.region}`)) {
          seen.add(`${next}:${fact.region}`);
          stack.push([next, fact.region]);
        }
      } else if (t.kind !== 'cond') out.set(JSON.stringify(t), true);
    });
  }
  return [...out.keys()];
}

test('flow closures and recorded stores agree with the plain walk on 100 random functions', () => {
  for (let seed = 1; seed <= 100; seed++) {
    const facts = randomFacts(seed);
    const relations = new FunctionRelations(facts);
    const closures: string[][] = [];
    const expected: string[][] = [];
    for (const fact of facts.facts) {
      if (fact.target.kind !== 'local') continue;
      const source = `l${fact.target.local}`;
      closures.push(relations.sinksFrom(source, fact.region).map((t) => JSON.stringify(t)));
      expected.push(referenceSinks(facts, source, fact.region));
    }
    expect(closures, `seed ${seed}`).toEqual(expected);
    // The sampling pass's answer (no full blame built) is the first stores of the full blame.
    const sampling = new FunctionRelations(facts);
    const full = new FunctionRelations(facts);
    const recorded: string[] = [];
    const fromBlame: string[] = [];
    for (const max of [1, 3, 8]) {
      for (let region = 0; region < facts.regions.length; region++) {
        recorded.push(JSON.stringify(sampling.recordedStores(region, max)));
        fromBlame.push(JSON.stringify(recordedStores(full.regionBlame(region), max)));
      }
    }
    expect(recorded, `seed ${seed}`).toEqual(fromBlame);
  }
});

/** A region's blame by its definition: its own sinks, else those of every later region (outside loops) or of the rest of its loop. */
function referenceBlame(facts: FunctionFacts, index: number): { sinks: string[]; implicit: boolean } {
  const callResults = new Set(facts.facts.flatMap((f) => f.sources.filter((s) => s.startsWith('c'))));
  const explicit = (region: number): string[] => {
    const out = new Set<string>();
    for (const fact of facts.facts) {
      const t = fact.target;
      if (fact.region !== region || t.kind === 'cond') continue;
      const sinks =
        t.kind === 'local'
          ? referenceSinks(facts, `l${t.local}`, region)
          : t.kind === 'arg' && callResults.has(`c${t.call}`)
            ? referenceSinks(facts, `c${t.call}`, region)
            : [JSON.stringify(t)];
      for (const sink of sinks) out.add(sink);
    }
    return [...out];
  };
  const own = explicit(index);
  if (own.length > 0) return { sinks: own, implicit: false };
  const loop = facts.regions[index]!.loop;
  const inside = (l: number) => {
    for (let at = l; at >= 0; at = facts.loopParents[at] ?? -1) if (at === loop) return true;
    return false;
  };
  const out = new Set<string>();
  facts.regions.forEach((region, k) => {
    if (k !== index && (loop < 0 ? k > index : inside(region.loop))) for (const sink of explicit(k)) out.add(sink);
  });
  return { sinks: [...out], implicit: true };
}

test('region blame (implicit sinks shared per loop and per later regions) agrees with its definition on 30 random functions', () => {
  for (let seed = 1; seed <= 30; seed++) {
    const facts = randomFacts(seed);
    const relations = new FunctionRelations(facts);
    // Asked in reverse order too: the shared lists must not depend on which region asks first.
    const order = [...facts.regions.keys()];
    if (seed % 2 === 0) order.reverse();
    for (const region of order) {
      const blame = relations.regionBlame(region);
      expect(
        { sinks: blame.sinks.map((s) => JSON.stringify(s)), implicit: blame.implicit },
        `seed ${seed} region ${region}`,
      ).toEqual(referenceBlame(facts, region));
    }
  }
});
