// `taintlens sample`: where the samples fell, per call path, beside the exact share of executed
// instructions from the loop profiler (same module, same arguments). The sampled share estimates
// the exact one: with N samples its standard error is about sqrt(p(1-p)/N).
import type { LoopProfileReport } from '../profile/profile-run.js';
import type { SampledRun } from './sample-run.js';

export interface SampledCallpath {
  callpath: string;
  samples: number;
  /** Share of all samples, 0–100. */
  sampledPercent: number;
  /** Share of all executed instructions (exclusive to the path's last function), 0–100. */
  exactPercent: number;
}

export interface SampledProfile {
  schema: 'taintlens/sample@1';
  module: string;
  invoke: string | null;
  result: SampledRun['result'];
  period: number;
  totalSamples: number;
  droppedSamples: number;
  totalInstructions: number;
  /** Largest |sampled - exact| over the call paths, in percentage points; null without samples. */
  maxErrorPoints: number | null;
  /**
   * The sampling error to expect for that path's share at 95% (1.96 standard errors of a share
   * estimated from totalSamples samples), in percentage points; null without samples.
   */
  expectedErrorPoints: number | null;
  callpaths: SampledCallpath[];
  /**
   * Function entries that found the calling-context tree full, in the sampled run and the exact
   * one together (present only when some did): their samples and instructions sit under the wrong
   * call paths or are missing.
   */
  contextsLost?: number;
  /** The tree's size in bytes (present with contextsLost). */
  contextTreeBytes?: number;
  /** The sampled run's time (ms, instrumented). */
  timing: { ms: number };
  stdout?: string;
  stderr?: string;
}

/**
 * What the comparison needs of a sampled run: `sample` keeps only this while the exact profile is
 * instrumented and run (yosys's sampled run, its site table and samples, is gigabytes).
 */
export interface SampledSummary {
  /** Samples per call path (function names joined by "->"). */
  counts: Map<string, number>;
  total: number;
  dropped: number;
  contextsLost: number;
  treeBytes: number;
  period: number;
  invoke: string | null;
  result: SampledRun['result'];
  ms: number;
  stdout: string;
  stderr: string;
}

export function summarizeSampled(sampled: SampledRun): SampledSummary {
  const names = sampled.sites.functions.map((f) => f.name);
  // Samples on one call path share its array: each path's name is built once.
  const pathNames = new Map<SampledRun['samples'][number]['path'], string>();
  const counts = new Map<string, number>();
  let total = 0;
  sampled.forEachSample((sample) => {
    total++;
    let path = pathNames.get(sample.path);
    if (path === undefined) pathNames.set(sample.path, (path = sample.path.map((f) => names[f.function]).join('->')));
    if (sample.leaf !== null && sample.path.length > 0) path = `${path}->${names[sample.leaf]}`;
    counts.set(path, (counts.get(path) ?? 0) + 1);
  });
  return {
    counts,
    total,
    dropped: sampled.dropped,
    contextsLost: sampled.contextsLost,
    treeBytes: sampled.layout.tree.bytes,
    period: sampled.layout.period,
    invoke: sampled.invoke,
    result: sampled.result,
    ms: sampled.ms,
    stdout: sampled.stdout,
    stderr: sampled.stderr,
  };
}

export function compareProfiles(
  file: string,
  run: SampledRun | SampledSummary,
  exact: LoopProfileReport,
): SampledProfile {
  const sampled = 'counts' in run ? run : summarizeSampled(run);
  const counts = sampled.counts;
  const total = sampled.total;
  const exactShare = new Map(exact.callpaths.map((c) => [c.callpath, c.instructions]));
  const paths = new Set([...counts.keys(), ...[...exactShare].filter(([, n]) => n > 0).map(([p]) => p)]);
  const round = (n: number) => Math.round(n * 100) / 100;
  const worst = (callpaths: SampledCallpath[]) =>
    callpaths.reduce<SampledCallpath | null>(
      (most, c) =>
        most === null || Math.abs(c.sampledPercent - c.exactPercent) > Math.abs(most.sampledPercent - most.exactPercent)
          ? c
          : most,
      null,
    );
  const callpaths = [...paths]
    .map((callpath) => ({
      callpath,
      samples: counts.get(callpath) ?? 0,
      sampledPercent: total ? round((100 * (counts.get(callpath) ?? 0)) / total) : 0,
      exactPercent: exact.totalInstructions
        ? round((100 * (exactShare.get(callpath) ?? 0)) / exact.totalInstructions)
        : 0,
    }))
    .sort((a, b) => b.exactPercent - a.exactPercent || b.samples - a.samples);
  const largest = total > 0 ? worst(callpaths) : null;
  const share = (largest?.exactPercent ?? 0) / 100;
  return {
    schema: 'taintlens/sample@1',
    module: file,
    invoke: sampled.invoke,
    result: sampled.result,
    period: sampled.period,
    totalSamples: total,
    droppedSamples: sampled.dropped,
    totalInstructions: exact.totalInstructions,
    maxErrorPoints: largest ? round(Math.abs(largest.sampledPercent - largest.exactPercent)) : null,
    expectedErrorPoints: largest ? round(100 * 1.96 * Math.sqrt((share * (1 - share)) / total)) : null,
    callpaths,
    ...contextsLostOf(sampled.contextsLost + (exact.contextsLost ?? 0), sampled.treeBytes),
    timing: { ms: Math.round(sampled.ms * 1000) / 1000 },
    ...(sampled.stdout ? { stdout: sampled.stdout } : {}),
    ...(sampled.stderr ? { stderr: sampled.stderr } : {}),
  };
}

/** The report fields for a tree that filled (none when nothing was lost). */
export function contextsLostOf(lost: number, treeBytes: number): { contextsLost?: number; contextTreeBytes?: number } {
  return lost > 0 ? { contextsLost: lost, contextTreeBytes: treeBytes } : {};
}
