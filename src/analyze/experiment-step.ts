// Step 2 of `taintlens analyze`: the experiment over the model parameters, with the taint-guided
// design (one-parameter lines where no function multiplies parameters), selective instrumentation
// from the taint step's report, exact instruction counts and time. It writes DIR/measurements.jsonl
// through the experiment engine, so an interrupted analysis resumes at the missing points.
import { runExperiment, type ExperimentDefinition } from '../experiment/experiment.js';
import {
  prepareExperimentDir,
  writeEnvironment,
  writeSummary,
  type SummaryDocument,
} from '../experiment/experiment-dir.js';
import { startProgress } from '../util/progress.js';
import type { VariedParameter } from '../experiment/grid.js';
import { proposedValues } from './propose.js';
import type { TaintFacts } from '../experiment/select.js';
import type { LoopProfiler } from '../profile/profile-memo.js';
import type { AnalysisConfig } from './config.js';

export interface ExperimentStep {
  measurements: string;
  /** `base`: the first value, where the design's one-parameter lines cross. */
  parameters: Array<{ name: string; values: number[]; base: number }>;
  design: SummaryDocument['design'];
  mode: string;
  rule: string;
  instrumentedFunctions: number;
  dropped: number;
  points: { measured: number; resumed: number };
}

/** The model parameters with their values (the config's, or the base value times its scale). */
export function variedParameters(config: AnalysisConfig, chosen: readonly string[]): VariedParameter[] {
  return chosen.map((name) => {
    const candidate = config.candidates.find((c) => c.name === name)!;
    const values = config.parameters?.get(name) ?? proposedValues(candidate.base, config.scale);
    return { name, target: candidate.target, values };
  });
}

/** The experiment as the engine defines it: the model parameters varied, every other at its base. */
export function experimentDefinition(
  file: string,
  bytes: Uint8Array,
  config: AnalysisConfig,
  parameters: VariedParameter[],
  taint: { report: string; facts: TaintFacts },
  profiler?: LoopProfiler,
): ExperimentDefinition {
  return {
    file,
    bytes,
    invoke: config.invoke,
    args: config.args,
    argv: config.argv,
    parameters,
    repetitions: config.repetitions,
    metrics: ['time', 'instructions'],
    mode: 'selective',
    taint,
    trace: 0,
    design: 'auto',
    timeoutMs: config.timeoutMs,
    ...(profiler ? { profiler } : {}),
  };
}

export async function runExperimentStep(
  definition: ExperimentDefinition,
  dir: string,
  showProgress: boolean,
  jobs: number,
): Promise<ExperimentStep> {
  const paths = prepareExperimentDir(dir);
  writeEnvironment(paths);
  const run = await runExperiment(definition, {
    output: paths.measurements,
    statsOutput: paths.points,
    jobs,
    progress: (points) => startProgress(points, 'experiment', showProgress),
  });
  const summary = writeSummary(paths, definition.file, run);
  return {
    measurements: paths.measurements,
    parameters: definition.parameters.map((p) => ({ name: p.name, values: p.values, base: p.values[0]! })),
    design: summary.design,
    mode: summary.mode,
    rule: summary.rule,
    instrumentedFunctions: summary.instrumentedFunctions,
    dropped: summary.dropped.length,
    points: { measured: run.campaign.measured, resumed: run.campaign.resumed },
  };
}
