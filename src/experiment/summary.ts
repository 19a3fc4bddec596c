// Per-point region statistics for DIR/summary.json: per region call path the visits, the medians
// over repetitions of inclusive, exclusive and first-visit time, and the later visits' statistics
// merged over repetitions (mean, coefficient of variation, min, max); plus the data volume a
// trace would have taken against what the summary and the bounded trace ring keep.
import type { GridPoint } from './grid.js';
import type { RegionRepetition } from './region-run.js';
import { coefficientOfVariation, mergeStats } from './region-profile.js';
import { REGION_RECORD, TRACE_ENTRY_BYTES } from '../../instrument/layouts.js';
import { median } from '../util/stats.js';

export interface RegionSummary {
  callpath: string;
  visits: number;
  inclusiveMs: number;
  exclusiveMs: number;
  firstVisitMs: number;
  later: { visits: number; meanMs: number | null; cv: number | null; minMs: number | null; maxMs: number | null };
  /** The ring buffer's last visits of the last repetition: [start ms, duration ms]. */
  trace?: Array<[number, number]>;
}

export interface PointSummary {
  params: GridPoint;
  repetitions: number;
  regions: RegionSummary[];
  volume: { summaryBytes: number; traceBytes: number; fullTraceBytes: number };
}

/** Bytes of statistics per region context (visits, sums, first, mean, M2, min, max). */
const SUMMARY_BYTES = REGION_RECORD.traced - REGION_RECORD.visits;

export function summarizePoint(params: GridPoint, repetitions: RegionRepetition[], trace: number): PointSummary {
  const paths = [...new Set(repetitions.flatMap((rep) => rep.regions.map((r) => r.callpath)))];
  // By call path (the first of a path wins, as a scan would find it): a call-heavy program has
  // ~100,000 region paths, and a scan per path was quadratic.
  const byPath = repetitions.map((rep) => new Map([...rep.regions].reverse().map((r) => [r.callpath, r])));
  const last = repetitions.at(-1)!;
  const lastByPath = byPath.at(-1)!;
  const regions = paths.map((callpath): RegionSummary => {
    const each = byPath.map((rep) => rep.get(callpath)).filter((r) => r !== undefined);
    const merged = each.reduce((a, b) => mergeStats(a, b));
    const later = merged.later;
    const kept = lastByPath.get(callpath)?.trace ?? [];
    return {
      callpath,
      visits: each[0]!.visits,
      inclusiveMs: median(each.map((r) => r.inclusiveMs)),
      exclusiveMs: median(each.map((r) => r.exclusiveMs)),
      firstVisitMs: median(each.map((r) => r.firstMs)),
      later:
        later.count === 0
          ? { visits: 0, meanMs: null, cv: null, minMs: null, maxMs: null }
          : {
              visits: each[0]!.later.count,
              meanMs: later.meanMs,
              cv: coefficientOfVariation(later),
              minMs: later.minMs,
              maxMs: later.maxMs,
            },
      ...(trace > 0 ? { trace: kept } : {}),
    };
  });
  const contexts = last.regions.length;
  const visits = last.regions.reduce((sum, r) => sum + r.visits, 0);
  return {
    params,
    repetitions: repetitions.length,
    regions,
    volume: {
      summaryBytes: contexts * SUMMARY_BYTES,
      traceBytes: last.regions.reduce((sum, r) => sum + r.trace.length, 0) * TRACE_ENTRY_BYTES,
      fullTraceBytes: visits * TRACE_ENTRY_BYTES,
    },
  };
}
