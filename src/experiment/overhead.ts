// The overhead comparison (Perf-Taint §6): the same points measured uninstrumented (none) and
// under full, default and selective instrumentation. Modes alternate within each round (the
// order rotates from round to round) so drift of the machine hits them alike; per mode the
// runtime ratio is the sum over points of the median whole-run time, divided by none's. Each
// mode's region times are modeled beside the exact instruction counts of the same regions (one
// loop-profiler run per point, folded onto the mode's regions), and a model whose growth differs
// from the instruction-count model is flagged: instrumentation changed it.
import { argumentsAt, type GridPoint } from './grid.js';
import { runAtBasePoint, type ExperimentDefinition } from './experiment.js';
import { selectRegions } from './select.js';
import { instrumentRegions, type RegionModule } from './region-run.js';
import { foldOntoRegions } from './fold.js';
import { autoDesign, gridDesign } from './design.js';
import { taintReportFor, wasiOf } from './select.js';
import { runModule } from '../runtime/run.js';
import { treeFullRefusal } from '../profile/tree-full.js';
import { UserError } from '../util/errors.js';
import { profileLoops } from '../profile/profile-run.js';
import { readExports } from '../../instrument/exports.js';
import { median } from '../util/stats.js';
import { Modeler, growthOf } from '../model/modeler.js';
import { formatModel } from '../model/format.js';
import { DEFAULT_CALLPATH } from '../io/measurements.js';
import type { MeasureMode, RegionSelection } from './modes.js';
import type { Progress } from '../util/progress.js';
import type { CallpathEntry } from '../profile/loop-profile.js';

const SIGNIFICANT_SHARE = 0.1;
/**
 * Runs per mode in a round, in one worker: the first (which runs code V8 has not optimized yet)
 * is dropped, the fastest of the others counts (the least disturbed by other work on the
 * machine); over rounds, the median.
 */
const RUNS_PER_ROUND = 4;

export const OVERHEAD_MODES: readonly MeasureMode[] = ['none', 'full', 'default', 'selective'];

export interface ModeOverhead {
  mode: string;
  instrumentedFunctions: number;
  /** Runtime ÷ none (sum over points of the median whole-run time). */
  ratio: number;
  /** The lowest and highest ratio of one round's times to the same round's none; null with one round. */
  roundRange: [number, number] | null;
  /**
   * Whether the mode is slower than none beyond the rounds' spread (every round's ratio above 1);
   * null with one round, where the spread is unknown.
   */
  aboveNoise: boolean | null;
  medianMs: number;
  rule: string;
  dropped: string[];
}

export interface RegionModel {
  callpath: string;
  /** Model of the region's exclusive time under this mode (none: the whole run). */
  time: string;
  /** Model of the same region's exact instruction count. */
  instructions: string;
  /** The region's exclusive time ÷ the whole run's (sums over points of medians). */
  share: number;
  /** Set when the time model grows differently from the instruction-count model (regions of ≥ 10% of the run). */
  changed: string | null;
}

export interface OverheadReport {
  schema: 'taintlens/overhead@1';
  module: string;
  points: number;
  rounds: number;
  modes: ModeOverhead[];
  fullOverSelective: number | null;
  /** The uninstrumented original against none (the same module relocated, no regions). */
  relocation: { originalMs: number; ratio: number };
  models: Record<string, RegionModel[]>;
}

interface ModeRun {
  selection: RegionSelection;
  /** null: the original module. */
  module: RegionModule | null;
  /** Per point: whole-run ms per round; per region call path, exclusive ms per round. */
  whole: number[][];
  regions: Array<Map<string, number[]>>;
}

export async function measureOverhead(
  def: ExperimentDefinition,
  rounds: number,
  progress?: Progress,
): Promise<OverheadReport> {
  const at = runAtBasePoint(def);
  const design =
    def.design === 'auto' ? autoDesign(def.parameters, await taintReportFor(at), 1) : gridDesign(def.parameters);
  const points = design.points;
  const exports = readExports(def.bytes, def.file);
  const runs: ModeRun[] = [];
  for (const mode of OVERHEAD_MODES) {
    const selection = await selectRegions({ ...at, mode });
    // none runs the module rewritten the same way with no region at all, so the ratios measure the
    // probes and not the memory relocation every instrumented module gets (memory-layout.ts); the
    // original module is timed too (relocation: none ÷ original).
    const module = await instrumentRegions(def.file, def.bytes, selection.functions ?? [], 0, def.contextBytes);
    runs.push({ selection, module, whole: points.map(() => []), regions: points.map(() => new Map()) });
  }
  const original: ModeRun = { selection: runs[0]!.selection, module: null, whole: points.map(() => []), regions: [] };
  const timed = [...runs, original];
  const profiles: CallpathEntry[][] = [];
  for (const point of points) {
    const profile = await (def.profiler ?? profileLoops)(
      def.file,
      def.bytes,
      { ...runArguments(def, point), repeat: 1, timeoutMs: def.timeoutMs },
      def.contextBytes !== undefined ? { contextBytes: def.contextBytes } : {},
    );
    if (profile.contextsLost) throw new UserError(treeFullRefusal(profile.contextsLost, profile.contextTreeBytes ?? 0));
    profiles.push(profile.callpaths);
  }
  for (let round = 0; round < rounds; round++) {
    for (let p = 0; p < points.length; p++) {
      for (let k = 0; k < timed.length; k++) {
        const run = timed[(k + round + p) % timed.length]!;
        const request = {
          file: def.file,
          ...runArguments(def, points[p]!),
          repeat: RUNS_PER_ROUND,
          timeoutMs: def.timeoutMs,
          exports,
        };
        if (!run.module) {
          const outcome = await runModule({ ...request, bytes: def.bytes });
          run.whole[p]!.push(Math.min(...outcome.repetitions.slice(1).map((r) => r.ms)));
          continue;
        }
        const reps = await run.module.run(request);
        const rep = reps.slice(1).sort((a, b) => a.ms - b.ms)[0];
        run.whole[p]!.push(rep!.ms);
        for (const region of rep!.regions) {
          const list = run.regions[p]!.get(region.callpath) ?? [];
          list.push(region.exclusiveMs);
          run.regions[p]!.set(region.callpath, list);
        }
      }
      progress?.tick(`round ${round + 1}/${rounds}`);
    }
  }
  const total = (run: ModeRun) => run.whole.reduce((sum, times) => sum + median(times), 0);
  const none = total(runs[0]!);
  const roundTotal = (run: ModeRun, round: number) => run.whole.reduce((sum, times) => sum + times[round]!, 0);
  const roundRange = (run: ModeRun): [number, number] | null => {
    if (rounds < 2) return null;
    const ratios = Array.from({ length: rounds }, (_, r) => roundTotal(run, r) / roundTotal(runs[0]!, r));
    return [Math.min(...ratios), Math.max(...ratios)];
  };
  const modes = runs.map((run): ModeOverhead => {
    const range = roundRange(run);
    return {
      mode: run.selection.mode,
      instrumentedFunctions: run.selection.functions?.length ?? 0,
      ratio: total(run) / none,
      roundRange: range,
      aboveNoise: range === null ? null : range[0] > 1,
      medianMs: total(run) / points.length,
      rule: run.selection.rule,
      dropped: run.selection.dropped.map((d) => d.name),
    };
  });
  const full = modes.find((m) => m.mode === 'full');
  const selective = modes.find((m) => m.mode === 'selective');
  const models: Record<string, RegionModel[]> = {};
  for (const run of runs) models[run.selection.mode] = modelMode(def, points, run, profiles);
  return {
    schema: 'taintlens/overhead@1',
    module: def.file,
    points: points.length,
    rounds,
    modes,
    fullOverSelective: full && selective ? full.ratio / selective.ratio : null,
    relocation: { originalMs: total(original) / points.length, ratio: none / total(original) },
    models,
  };
}

function runArguments(def: ExperimentDefinition, point: GridPoint) {
  return {
    invoke: def.invoke,
    args: argumentsAt(point, def.parameters, 'arg', def.args),
    argv: argumentsAt(point, def.parameters, 'argv', def.argv),
    ...wasiOf(def),
  };
}

/** Time models of a mode's regions beside the instruction-count models of the same regions. */
function modelMode(
  def: ExperimentDefinition,
  points: GridPoint[],
  run: ModeRun,
  profiles: CallpathEntry[][],
): RegionModel[] {
  const params = def.parameters.map((p) => p.name);
  const coords = (point: GridPoint) => params.map((name) => point[name]!);
  const modeler = new Modeler('median');
  const fit = (values: number[][]) => {
    const series = {
      callpath: '',
      metric: '',
      params,
      points: points.map((point, i) => ({ coords: coords(point), values: values[i]! })),
    };
    return modeler.model(series).terms;
  };
  const folded = profiles.map((callpaths) => {
    if (!run.selection.functions)
      return new Map([[DEFAULT_CALLPATH, callpaths.reduce((sum, c) => sum + c.instructions, 0)]]);
    return new Map(foldOntoRegions(callpaths, run.selection.functions).map((c) => [c.callpath, c.instructions]));
  });
  const paths = run.selection.functions ? [...new Set(run.regions.flatMap((m) => [...m.keys()]))] : [DEFAULT_CALLPATH];
  const out: RegionModel[] = [];
  for (const callpath of paths) {
    const times = run.selection.functions ? run.regions.map((m) => m.get(callpath) ?? []) : run.whole;
    const counts = folded.map((m) => [m.get(callpath) ?? 0]);
    if (times.some((t) => t.length === 0) || counts.every(([c]) => c === 0)) continue;
    const timeTerms = fit(times);
    const countTerms = fit(counts);
    // A region with a small share of the run is mostly timing noise: its models are shown, not judged.
    const share = times.reduce((sum, t) => sum + median(t), 0) / run.whole.reduce((sum, t) => sum + median(t), 0);
    const changed =
      share >= SIGNIFICANT_SHARE ? growthDifference(growthOf(timeTerms), growthOf(countTerms), params) : null;
    out.push({ callpath, share, time: formatModel(timeTerms), instructions: formatModel(countTerms), changed });
  }
  return out;
}

/**
 * Where a time model and the instruction-count model of the same region disagree beyond timing
 * noise: a parameter only one of them depends on, or leading exponents more than 1/2 apart.
 */
function growthDifference(
  time: ReturnType<typeof growthOf>,
  count: ReturnType<typeof growthOf>,
  params: string[],
): string | null {
  const show = (g: { exponent: number; log: number } | undefined) =>
    !g ? 'constant' : `^${+g.exponent.toFixed(2)}${g.log ? ` log^${g.log}` : ''}`;
  for (const name of params) {
    const a = time[name];
    const b = count[name];
    if (!a && !b) continue;
    if (!a || !b || Math.abs(a.exponent - b.exponent) > 0.5)
      return `${name}: time grows ${show(a)}, instructions ${show(b)}`;
  }
  return null;
}
