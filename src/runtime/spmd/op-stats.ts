// Per-rank summary statistics of communication calls, after Adve et al.: the first call of each
// operation is kept apart (the leading edge of a pipeline: ranks are not yet in step), the steady
// state is summarised as count, mean, coefficient of variation, min and max. No trace is kept.

export interface SteadyStats {
  calls: number;
  meanMs: number;
  /** Standard deviation over the mean (0 for fewer than two calls). */
  cv: number;
  minMs: number;
  maxMs: number;
}

export interface OpStats {
  calls: number;
  bytes: number;
  totalMs: number;
  firstMs: number;
  steady: SteadyStats | null;
}

export class OpRecorder {
  private readonly ops = new Map<
    string,
    { calls: number; bytes: number; first: number; sum: number; sumSq: number; min: number; max: number; total: number }
  >();

  record(op: string, ms: number, bytes: number): void {
    const entry = this.ops.get(op);
    if (!entry) {
      this.ops.set(op, { calls: 1, bytes, first: ms, sum: 0, sumSq: 0, min: Infinity, max: -Infinity, total: ms });
      return;
    }
    entry.calls++;
    entry.bytes += bytes;
    entry.total += ms;
    entry.sum += ms;
    entry.sumSq += ms * ms;
    entry.min = Math.min(entry.min, ms);
    entry.max = Math.max(entry.max, ms);
  }

  summary(): Record<string, OpStats> {
    const out: Record<string, OpStats> = {};
    for (const [op, e] of [...this.ops].sort(([a], [b]) => a.localeCompare(b))) {
      const steadyCalls = e.calls - 1;
      const mean = steadyCalls > 0 ? e.sum / steadyCalls : 0;
      const variance = steadyCalls > 1 ? Math.max(0, e.sumSq / steadyCalls - mean * mean) : 0;
      out[op] = {
        calls: e.calls,
        bytes: e.bytes,
        totalMs: e.total,
        firstMs: e.first,
        steady:
          steadyCalls > 0
            ? {
                calls: steadyCalls,
                meanMs: mean,
                cv: mean > 0 ? Math.sqrt(variance) / mean : 0,
                minMs: e.min,
                maxMs: e.max,
              }
            : null,
      };
    }
    return out;
  }
}
