// One experiment end to end, shared by `measure --vary` and `experiment SPEC`: resolve the mode's
// region functions at the base point, choose the design (grid, or taint-guided lines), run the
// campaign. Each front end only turns its input into an ExperimentDefinition and prints.
import { readFileSync } from 'node:fs';
import { argumentsAt, type GridPoint, type VariedParameter } from './grid.js';
import { runCampaign, type CampaignOptions, type CampaignSummary, type Metric } from './campaign.js';
import type { CampaignDefinition } from './identity.js';
import { selectRegions, taintReportFor, type SelectionInput } from './select.js';
import { autoDesign, gridDesign, type Design } from './design.js';
import type { MeasureMode, RegionSelection } from './modes.js';
import type { Progress } from '../util/progress.js';
import { pointKey } from './grid.js';
import type { PointSummary } from './summary.js';
import type { WasiConfig } from '../runtime/protocol.js';
import type { LoopProfiler } from '../profile/profile-memo.js';

export interface ExperimentDefinition {
  file: string;
  bytes: Uint8Array;
  invoke: string | null;
  args: string[];
  argv: string[];
  parameters: VariedParameter[];
  repetitions: number;
  metrics: Metric[];
  mode: MeasureMode;
  taint?: SelectionInput['taint'];
  trace: number;
  design: 'grid' | 'auto';
  timeoutMs: number;
  /** SPMD ranks when fixed (`--ranks`, spec `"ranks": 4`); a varied count is a parameter (`ranks:` target). */
  ranks?: number;
  /** A WASI command's folders, environment and standard input (none when absent). */
  wasi?: WasiConfig;
  /** The loop profiler (analyze shares one across its steps, so each point is profiled once). */
  profiler?: LoopProfiler;
  /** Size of the calling-context trees of the profiling and measurement runs (default 16 MiB). */
  contextBytes?: number;
}

export interface ExperimentRun {
  selection: RegionSelection;
  design: Design;
  campaign: CampaignSummary;
}

export interface ExperimentOutputs {
  output: string;
  statsOutput?: string;
  jobs: number;
  /** Called once the design is known (to size a progress bar). */
  progress?: (points: number) => Progress;
}

/** The first value of every parameter: where the profiling and taint runs happen. */
export function basePoint(parameters: VariedParameter[]): GridPoint {
  return Object.fromEntries(parameters.map((p) => [p.name, p.values[0]!]));
}

/** The run at the base point that region selection, the taint report and the overhead start from. */
export function runAtBasePoint(def: ExperimentDefinition) {
  const base = basePoint(def.parameters);
  return {
    file: def.file,
    bytes: def.bytes,
    invoke: def.invoke,
    timeoutMs: def.timeoutMs,
    args: argumentsAt(base, def.parameters, 'arg', def.args),
    argv: argumentsAt(base, def.parameters, 'argv', def.argv),
    ...(def.taint ? { taint: def.taint } : {}),
    ...hostOf(def),
    ...(def.profiler ? { profiler: def.profiler } : {}),
  };
}

/** The mode's region functions and the design, both from runs at the base point. */
export async function planExperiment(
  def: ExperimentDefinition,
): Promise<{ selection: RegionSelection; design: Design }> {
  const at = runAtBasePoint(def);
  const selection = await selectRegions({ ...at, mode: def.mode });
  const design =
    def.design === 'auto'
      ? autoDesign(def.parameters, await taintReportFor(at), def.repetitions)
      : gridDesign(def.parameters);
  return { selection, design };
}

/** What the campaign runner needs of an experiment (all but where it writes), with the mode's regions. */
export type CampaignOfExperiment = CampaignDefinition &
  Pick<CampaignOptions, 'metrics' | 'timeoutMs' | 'trace' | 'wasi' | 'contextBytes' | 'profiler'>;

/** What every run of an analysis gets besides its arguments: the WASI host's extras and the context-tree size. */
export type RunHost = Pick<ExperimentDefinition, 'wasi' | 'contextBytes'>;

/** The run host of an experiment (WASI directories etc., context-tree size), only the fields given. */
function hostOf(
  def: Pick<ExperimentDefinition, 'wasi' | 'contextBytes'>,
): Pick<ExperimentDefinition, 'wasi' | 'contextBytes'> {
  return {
    ...(def.wasi ? { wasi: def.wasi } : {}),
    ...(def.contextBytes !== undefined ? { contextBytes: def.contextBytes } : {}),
  };
}

/** The one mapping from an experiment to its campaign: a local run and every SLURM task use it. */
export function campaignOf(
  def: Omit<ExperimentDefinition, 'taint' | 'design'>,
  regions: string[] | null,
): CampaignOfExperiment {
  return {
    file: def.file,
    bytes: def.bytes,
    invoke: def.invoke,
    baseArgs: def.args,
    baseArgv: def.argv,
    parameters: def.parameters,
    repeat: def.repetitions,
    metrics: def.metrics,
    timeoutMs: def.timeoutMs,
    trace: def.trace,
    mode: def.mode,
    regions,
    ...(def.ranks !== undefined ? { ranks: def.ranks } : {}),
    ...hostOf(def),
    ...(def.profiler ? { profiler: def.profiler } : {}),
  };
}

export async function runExperiment(def: ExperimentDefinition, out: ExperimentOutputs): Promise<ExperimentRun> {
  const { selection, design } = await planExperiment(def);
  const progress = out.progress?.(design.points.length);
  try {
    const campaign = await runCampaign({
      ...campaignOf(def, selection.functions),
      output: out.output,
      jobs: out.jobs,
      points: design.points,
      ...(out.statsOutput ? { statsOutput: out.statsOutput } : {}),
      ...(progress ? { progress } : {}),
    });
    return { selection, design, campaign };
  } finally {
    progress?.stop();
  }
}

/** The per-point statistics kept so far, the last record of each point (a resumed point may repeat). */
export function readPointSummaries(file: string): PointSummary[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const byPoint = new Map<string, PointSummary>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line) as PointSummary;
      byPoint.set(pointKey(entry.params), entry);
    } catch {
      // A torn last record: its point is measured again.
    }
  }
  return [...byPoint.values()];
}
