// Reads the measurement pass's region tree (copied out of the module's memory after a run) into
// per-call-path region statistics: visits, inclusive and exclusive time, the first visit apart and
// mean / coefficient of variation / min / max of the later visits, and the trace ring's entries.
import { REGION_RECORD, TRACE_ENTRY_BYTES, readContextNodes } from '../../instrument/layouts.js';
import type { MeasureLayout } from '../../instrument/passes/measure.js';

export interface RegionStats {
  callpath: string;
  function: string;
  visits: number;
  inclusiveMs: number;
  exclusiveMs: number;
  firstMs: number;
  /** Later visits (all but the first): Welford's running mean and variance. */
  later: { count: number; meanMs: number; m2: number; minMs: number; maxMs: number };
  /** The last visits kept by the ring buffer (oldest first): start and duration in ms. */
  trace: Array<[number, number]>;
}

export function decodeRegions(raw: Uint8Array, layout: MeasureLayout, next: number): RegionStats[] {
  const names = new Map(layout.regions.map((r) => [r.index, r.name]));
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const at = (address: number) => address - layout.tree.base;
  const f64 = (address: number) => view.getFloat64(at(address), true);
  const u64 = (address: number) => Number(view.getBigUint64(at(address), true));
  const nodes = readContextNodes(raw, layout.tree, next, (index) => (names.has(index) ? layout.nodeBytes : 0));
  const pathOf = new Map<number, string>();
  const out: RegionStats[] = [];
  for (const node of nodes) {
    const name = names.get(node.functionIndex)!;
    const parentPath = pathOf.get(node.parent);
    const callpath = parentPath ? `${parentPath}->${name}` : name;
    pathOf.set(node.address, callpath);
    const R = REGION_RECORD;
    const a = node.address;
    const visits = u64(a + R.visits);
    if (visits === 0) continue;
    const traced = u64(a + R.traced);
    const kept = Math.min(traced, layout.trace);
    const trace: Array<[number, number]> = [];
    for (let i = traced - kept; i < traced; i++) {
      const entry = a + R.ring + TRACE_ENTRY_BYTES * (i % layout.trace);
      trace.push([f64(entry), f64(entry + 8)]);
    }
    out.push({
      callpath,
      function: name,
      visits,
      inclusiveMs: f64(a + R.inclusive),
      exclusiveMs: f64(a + R.exclusive),
      firstMs: f64(a + R.first),
      later: {
        count: visits - 1,
        meanMs: f64(a + R.mean),
        m2: f64(a + R.m2),
        minMs: f64(a + R.min),
        maxMs: f64(a + R.max),
      },
      trace,
    });
  }
  return mergeByCallpath(out);
}

/** One entry per call path (a path can show up twice only when recursion folds differently). */
function mergeByCallpath(entries: RegionStats[]): RegionStats[] {
  const byPath = new Map<string, RegionStats>();
  for (const entry of entries) {
    const seen = byPath.get(entry.callpath);
    byPath.set(entry.callpath, seen ? mergeStats(seen, entry) : entry);
  }
  return [...byPath.values()];
}

/** Combines two sets of statistics of the same region (Chan et al.'s pairwise Welford update). */
export function mergeStats(a: RegionStats, b: RegionStats): RegionStats {
  const n = a.later.count + b.later.count;
  const delta = b.later.meanMs - a.later.meanMs;
  const later =
    n === 0
      ? a.later
      : {
          count: n,
          meanMs: a.later.meanMs + (delta * b.later.count) / n,
          m2: a.later.m2 + b.later.m2 + (delta * delta * a.later.count * b.later.count) / n,
          minMs:
            a.later.count === 0
              ? b.later.minMs
              : b.later.count === 0
                ? a.later.minMs
                : Math.min(a.later.minMs, b.later.minMs),
          maxMs:
            a.later.count === 0
              ? b.later.maxMs
              : b.later.count === 0
                ? a.later.maxMs
                : Math.max(a.later.maxMs, b.later.maxMs),
        };
  return {
    callpath: a.callpath,
    function: a.function,
    visits: a.visits + b.visits,
    inclusiveMs: a.inclusiveMs + b.inclusiveMs,
    exclusiveMs: a.exclusiveMs + b.exclusiveMs,
    firstMs: a.firstMs,
    later,
    trace: [...a.trace, ...b.trace].slice(-Math.max(a.trace.length, b.trace.length)),
  };
}

/** Coefficient of variation of the later visits (sample standard deviation ÷ mean); null under two visits. */
export function coefficientOfVariation(stats: RegionStats['later']): number | null {
  if (stats.count < 2 || stats.meanMs === 0) return null;
  return Math.sqrt(stats.m2 / (stats.count - 1)) / stats.meanMs;
}
