// An experiment campaign, the one engine behind `measure --vary` and `experiment SPEC`: run a
// kernel at every point of a design and append Extra-P JSON Lines measurements.
// - time: per repetition, the whole run (`<root>`) and, in a mode with regions, each region call
//   path's exclusive time (measurement pass, instrument/passes/measure.ts);
// - instructions, visits: exact, from one loop-profiler run per point, per call path exclusive of
//   callees (mode none: every function; otherwise folded onto the region call paths, Score-P-like:
//   a function left out counts to the nearest region that called it).
// - bytes, calls, commtime: an SPMD run's communication per call (communication.ts).
// Each point's lines are appended in one write, only once every run at the point succeeded, so a
// campaign that stops (or fails at a point) resumes at the missing points, each measured once.
// Points run `jobs` at a time, each run in its own worker thread, and are written in design order.
import { appendDurably } from '../util/atomic-write.js';
import { runModule, type RunOutcome } from '../runtime/run.js';
import { MP_MODULE } from '../runtime/spmd/mp-plugin.js';
import { slowestRankMs } from '../runtime/spmd/slowest-rank.js';
import { profileLoops } from '../profile/profile-run.js';
import { readExports } from '../../instrument/exports.js';
import { argumentsAt, ranksAt, gridPoints, pointKey, type GridPoint } from './grid.js';
import { identityOf, type CampaignDefinition } from './identity.js';
import { prepareOutput } from './resume.js';
import { UserError, withContext } from '../util/errors.js';
import { treeFullRefusal } from '../profile/tree-full.js';
import type { WasiConfig } from '../runtime/protocol.js';
import type { Progress } from '../util/progress.js';
import { DEFAULT_CALLPATH } from '../io/measurements.js';
import { instrumentRegions, type RegionModule } from './region-run.js';
import { summarizePoint, type PointSummary } from './summary.js';
import { foldOntoRegions } from './fold.js';
import { wasiOf } from './select.js';
import type { LoopProfiler } from '../profile/profile-memo.js';
import {
  communicationLines,
  COMMUNICATION_METRICS,
  type CommunicationMetric,
  type RankCommunication,
} from './communication.js';

export type Metric = 'time' | 'instructions' | 'visits' | CommunicationMetric;
export const METRICS: readonly Metric[] = ['time', 'instructions', 'visits', ...COMMUNICATION_METRICS];

/** What the campaign measures (its identity, kept beside the output) and how it runs. */
export interface CampaignOptions extends CampaignDefinition {
  metrics: Metric[];
  timeoutMs: number;
  output: string;
  progress?: Progress;
  /** The points to measure (default: the full grid of `parameters`). */
  points?: GridPoint[];
  /** Concurrent points (default 1). */
  jobs?: number;
  /** Visits kept per region context in the trace ring. */
  trace?: number;
  /** Appends each point's region statistics here (JSON Lines) before its measurements. */
  statsOutput?: string;
  /** A WASI command's folders, environment and standard input. */
  wasi?: WasiConfig;
  /** The loop profiler for instruction counts and visits (default: a fresh run per point). */
  profiler?: LoopProfiler;
  /** Calling-context tree size of the counting and measurement runs (default 16 MiB). */
  contextBytes?: number;
}

export interface MeasurementLine {
  params: GridPoint;
  callpath: string;
  metric: string;
  value: number;
}

export interface CampaignSummary {
  points: number;
  measured: number;
  resumed: number;
  lines: number;
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignSummary> {
  const points = options.points ?? gridPoints(options.parameters);
  const communicationMetrics = options.metrics.filter(isCommunicationMetric);
  if (communicationMetrics.length > 0 && !passesMessages(options.bytes))
    throw new UserError(
      `${options.file}: ${communicationMetrics.join(', ')} measure an SPMD run's communication, and the module does not import taintlens_mp`,
    );
  const done = prepareOutput(options.output, identityOf(options));
  const exports = readExports(options.bytes, options.file);
  const regions =
    options.regions && options.metrics.includes('time')
      ? await instrumentRegions(options.file, options.bytes, options.regions, options.trace ?? 0, options.contextBytes)
      : null;
  let measured = 0;
  let lines = 0;
  const todo = points.filter((point) => {
    if (!done.has(pointKey(point))) return true;
    options.progress?.tick(`${describePoint(point)} (done before)`);
    return false;
  });
  // Points finish in any order; they are appended in design order, each once all before it are.
  const finished: Array<{ lines: MeasurementLine[]; stats: PointSummary | null } | undefined> = [];
  let written = 0;
  const flush = () => {
    for (let out = finished[written]; out !== undefined; out = finished[written]) {
      if (options.statsOutput && out.stats) appendDurably(options.statsOutput, JSON.stringify(out.stats) + '\n');
      appendDurably(options.output, out.lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
      measured++;
      lines += out.lines.length;
      finished[written] = undefined;
      options.progress?.tick(describePoint(todo[written]!));
      written++;
    }
  };
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (next < todo.length && failure === null) {
      const index = next++;
      const point = todo[index]!;
      try {
        finished[index] = await measurePoint(options, point, exports, regions);
      } catch (error) {
        failure ??= withContext(error, `at point ${describePoint(point)} (nothing stored for it)`);
        return;
      }
      flush();
    }
  };
  const jobs = Math.max(1, Math.min(options.jobs ?? 1, todo.length));
  await Promise.all(Array.from({ length: jobs }, worker));
  if (failure !== null) throw failure;
  return { points: points.length, measured, resumed: points.length - measured, lines };
}

/** Every line of one point; throws (and nothing is stored) when any run at it fails. */
async function measurePoint(
  options: CampaignOptions,
  point: GridPoint,
  exports: ReturnType<typeof readExports>,
  regions: RegionModule | null,
): Promise<{ lines: MeasurementLine[]; stats: PointSummary | null }> {
  const args = argumentsAt(point, options.parameters, 'arg', options.baseArgs);
  const argv = argumentsAt(point, options.parameters, 'argv', options.baseArgv);
  const ranks = ranksAt(point, options.parameters, options.ranks);
  const spmd = ranks !== undefined ? { ranks } : {};
  const out: MeasurementLine[] = [];
  const line = (callpath: string, metric: Metric, value: number) =>
    out.push({ params: point, callpath, metric, value });
  // Communication of the counting run: exact, the instrumentation changes no message.
  let profiled: RankCommunication | null = null;
  if (options.metrics.includes('instructions') || options.metrics.includes('visits')) {
    const profile = await (options.profiler ?? profileLoops)(
      options.file,
      options.bytes,
      {
        invoke: options.invoke,
        args,
        argv,
        repeat: 1,
        timeoutMs: options.timeoutMs,
        ...spmd,
        ...wasiOf(options),
      },
      options.contextBytes !== undefined ? { contextBytes: options.contextBytes } : {},
    );
    // Truncated counts are no data: the point fails (nothing stored) with the fix.
    if (profile.contextsLost) throw new UserError(treeFullRefusal(profile.contextsLost, profile.contextTreeBytes ?? 0));
    if (profile.spmd) profiled = [profile.spmd.perRank.map((rank) => rank.communication)];
    const callpaths = options.regions ? foldOntoRegions(profile.callpaths, options.regions) : profile.callpaths;
    for (const callpath of callpaths) {
      if (options.metrics.includes('instructions')) line(callpath.callpath, 'instructions', callpath.instructions);
      if (options.metrics.includes('visits') && callpath.calls > 0) line(callpath.callpath, 'visits', callpath.calls);
    }
  }
  let stats: PointSummary | null = null;
  let communication: RankCommunication | null = null;
  const run = {
    file: options.file,
    invoke: options.invoke,
    args,
    argv,
    repeat: options.repeat,
    timeoutMs: options.timeoutMs,
    exports,
    ...spmd,
    ...wasiOf(options),
  };
  if (options.metrics.includes('time')) {
    if (regions) {
      const repetitions = await regions.run(run);
      for (const repetition of repetitions) {
        line(DEFAULT_CALLPATH, 'time', repetition.ms);
        for (const region of repetition.regions) line(region.callpath, 'time', region.exclusiveMs);
      }
      stats = summarizePoint(point, repetitions, options.trace ?? 0);
      communication = repetitions.map((repetition) => repetition.communication);
    } else {
      const outcome = await runModule({ ...run, bytes: options.bytes });
      for (const ms of slowestRankMs(outcome)) line(DEFAULT_CALLPATH, 'time', ms);
      communication = rankCommunication(outcome);
    }
  }
  const communicationMetrics = options.metrics.filter(isCommunicationMetric);
  if (communicationMetrics.length > 0) {
    // Times in communication come from the timed runs (the counting run's are distorted by counting).
    const timed = communicationMetrics.includes('commtime');
    if (!timed) communication ??= profiled;
    if (communication === null) {
      const repeat = timed ? options.repeat : 1;
      communication = rankCommunication(await runModule({ ...run, repeat, bytes: options.bytes }));
    }
    for (const { callpath, metric, value } of communicationLines(communication, communicationMetrics))
      line(callpath, metric, value);
  }
  return { lines: out, stats };
}

function passesMessages(bytes: Uint8Array): boolean {
  return WebAssembly.Module.imports(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>)).some(
    (i) => i.module === MP_MODULE,
  );
}

function isCommunicationMetric(metric: Metric): metric is CommunicationMetric {
  return (COMMUNICATION_METRICS as readonly Metric[]).includes(metric);
}

/** Per repetition, every rank's communication (no ranks: an empty list per repetition). */
function rankCommunication(outcome: RunOutcome): RankCommunication {
  return outcome.repetitions.map((_, i) => outcome.ranks?.map((rank) => rank.repetitions[i]!.communication) ?? []);
}

export function describePoint(point: GridPoint): string {
  return Object.entries(point)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}
