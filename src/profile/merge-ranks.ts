// The loop profile of an SPMD run: every rank's profile and their sum. Loop contexts are matched by
// loop, call path and call sites (context numbers differ between ranks that took different paths);
// the merged entry keeps the id the first rank that ran it gave it. Each merged loop context also
// gets its inclusive instructions per rank, summarised (mean, CV, min, max) to show imbalance.
import type { CallpathEntry, FunctionEntry, LoopEntry, LoopProfile } from './loop-profile.js';
import { populationSpread, type PopulationSpread } from '../util/stats.js';

export interface RankLoopSpread extends PopulationSpread {
  /** Inclusive instructions per rank (0 where a rank never ran the loop context). */
  perRank: number[];
}

export interface MergedLoopProfile extends LoopProfile {
  /** Per loop context id, its spread over the ranks. */
  rankSpread: Record<string, RankLoopSpread>;
}

const loopKey = (loop: LoopEntry) => `${loop.loop}|${loop.callpath}|${loop.callsites.join(',')}`;

export function mergeRankProfiles(profiles: LoopProfile[]): MergedLoopProfile {
  const merged = new Map<string, LoopEntry>();
  const perRank = new Map<string, number[]>();
  profiles.forEach((profile, rank) => {
    const idOfKey = new Map(profile.loops.map((l) => [l.id, loopKey(l)]));
    for (const loop of profile.loops) {
      const key = loopKey(loop);
      const counts = perRank.get(key) ?? new Array<number>(profiles.length).fill(0);
      counts[rank] = loop.inclusiveInstructions;
      perRank.set(key, counts);
      const existing = merged.get(key);
      if (!existing) {
        const parentKey = loop.parent === null ? null : (idOfKey.get(loop.parent) ?? null);
        merged.set(key, { ...loop, parent: parentKey, calls: [...loop.calls] });
        continue;
      }
      existing.entries += loop.entries;
      existing.iterations += loop.iterations;
      existing.instructions += loop.instructions;
      existing.inclusiveInstructions += loop.inclusiveInstructions;
      for (const call of loop.calls) if (!existing.calls.includes(call)) existing.calls.push(call);
    }
  });
  // Parents were recorded as keys: turn them into the merged ids.
  const loops = [...merged.values()].map((loop) => ({
    ...loop,
    parent: loop.parent === null ? null : (merged.get(loop.parent)?.id ?? null),
  }));
  const rankSpread: Record<string, RankLoopSpread> = {};
  for (const [key, counts] of perRank)
    rankSpread[merged.get(key)!.id] = { ...populationSpread(counts), perRank: counts };
  return {
    loops,
    functions: sumBy(
      profiles.flatMap((p) => p.functions),
      (f) => f.name,
      (a, b) => ({
        ...a,
        calls: a.calls + b.calls,
        instructions: a.instructions + b.instructions,
        inclusiveInstructions: a.inclusiveInstructions + b.inclusiveInstructions,
      }),
    ),
    callpaths: sumBy(
      profiles.flatMap((p) => p.callpaths),
      (c) => c.callpath,
      (a, b) => ({
        ...a,
        calls: a.calls + b.calls,
        instructions: a.instructions + b.instructions,
        inclusiveInstructions: a.inclusiveInstructions + b.inclusiveInstructions,
      }),
    ),
    totalInstructions: profiles.reduce((sum, p) => sum + p.totalInstructions, 0),
    rankSpread,
  };
}

function sumBy<T extends FunctionEntry | CallpathEntry>(
  items: T[],
  key: (item: T) => string,
  add: (a: T, b: T) => T,
): T[] {
  const out = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    const existing = out.get(k);
    out.set(k, existing ? add(existing, item) : { ...item });
  }
  return [...out.values()];
}
