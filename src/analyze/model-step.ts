// Step 3 of `taintlens analyze`: PMNF models of every call path's instruction count and time with
// the taint prior, extrapolated to the config's target, ranked by instructions (exact counts: the
// same ranking on every run), with the scalability-bug, contention, branch and too-narrow flags.
// Per ranked call path it keeps what the report plots: every repetition along a line of each
// parameter, and the model from the smallest measured value to the target.
import { isLibraryFunction } from '../../instrument/debug/library-code.js';
import { readMeasurements } from '../io/measurements.js';
import { readTaintReport } from '../io/taint.js';
import { DEFAULT_GROWTH, modelExperiment, type CallpathModel } from '../model/modeler.js';
import { evaluateModel } from '../model/format.js';
import type { Series } from '../model/types.js';
import { ROOT_CALLPATH } from '../model/design.js';
import { actionFlags, modelStatus, STATUS_TEXT, type ModelStatus } from '../model/status.js';
import { FLAG_TEXT } from '../io/models.js';
import type { VariedParameter } from '../experiment/grid.js';

export const RANK_METRIC = 'instructions';
const TIME_METRIC = 'time';
/** Samples of a model curve between the smallest measured value and the target. */
const CURVE_SAMPLES = 40;

export interface RankedModel {
  rank: number;
  callpath: string;
  instructions: ModelSummary;
  time: ModelSummary | null;
  /** Of the whole program's predicted instructions at the target (`<root>`: 1). */
  shareAtTarget: number;
}

export interface ModelSummary {
  model: string;
  leading: string | null;
  prediction: number;
  smape: number;
  exact: boolean;
  /** In plain words: exact, fit, noisy, no closed form, too short. */
  status: ModelStatus;
  /** Every flag the modeler set (the JSON keeps them all). */
  flags: string[];
  /** The flags that change what the user should do: the ones the tables show. */
  actionFlags: string[];
  prior: string | null;
}

export interface ParameterPlot {
  metric: string;
  param: string;
  /** The other parameters, held at their base values. */
  fixed: Record<string, number>;
  measurements: Array<{ x: number; y: number; repetition: number }>;
  model: Array<{ x: number; y: number }>;
  target: { x: number; y: number };
}

export interface ModelStep {
  params: string[];
  target: Record<string, number>;
  ranked: RankedModel[];
  /** Per call path (the top `plots` ranked ones): per metric and parameter. */
  plots: Record<string, ParameterPlot[]>;
  warnings: string[];
  /** Call paths whose model of a metric grows faster than the main work and matters at the target. */
  scalabilityBugs: Array<{ callpath: string; metric: string; flag: string }>;
}

/** The config's target, and 4× the largest measured value for every parameter it leaves out. */
export function targetOf(
  parameters: readonly VariedParameter[],
  given: Readonly<Record<string, number>>,
): Record<string, number> {
  return Object.fromEntries(parameters.map((p) => [p.name, given[p.name] ?? 4 * Math.max(...p.values)]));
}

export function runModelStep(
  measurementsFile: string,
  taintFile: string,
  parameters: readonly VariedParameter[],
  target: Record<string, number>,
  plots: number,
): ModelStep {
  const experiment = readMeasurements(measurementsFile, 'jsonl');
  const taint = readTaintReport(taintFile);
  const report = modelExperiment(experiment, {
    aggregate: 'median',
    fit: 'auto',
    target,
    growth: DEFAULT_GROWTH,
    taint,
    timeInMs: true,
    wholeProgram: true,
    // library call paths (printf_core, atoi, malloc) fold into their callers, as `taintlens model` does without --all
    isLibrary: (fn: string) => isLibraryFunction(fn, [], false),
  });
  const counts = report.models.filter((m) => m.metric === RANK_METRIC);
  const times = new Map(report.models.filter((m) => m.metric === TIME_METRIC).map((m) => [m.callpath, m]));
  const root = counts.find((m) => m.callpath === ROOT_CALLPATH);
  const total = root ? root.prediction : counts.reduce((sum, m) => sum + Math.max(0, m.prediction), 0);
  const ranked = counts.map((m): RankedModel => {
    const time = times.get(m.callpath);
    return {
      rank: m.rank,
      callpath: m.callpath,
      instructions: summary(m),
      time: time ? summary(time) : null,
      shareAtTarget: total > 0 ? Math.max(0, m.prediction) / total : 0,
    };
  });
  const base = Object.fromEntries(parameters.map((p) => [p.name, p.values[0]!]));
  const largest = Object.fromEntries(parameters.map((p) => [p.name, Math.max(...p.values)]));
  const plotted: Record<string, ParameterPlot[]> = {};
  for (const row of ranked.slice(0, plots)) {
    plotted[row.callpath] = [RANK_METRIC, TIME_METRIC].flatMap((metric) => {
      const model = report.models.find((m) => m.metric === metric && m.callpath === row.callpath);
      const series = experiment.series.find((s) => s.metric === metric && s.callpath === row.callpath);
      return model && series
        ? experiment.params.map((param) => parameterPlot(series, model, param, [largest, base], target))
        : [];
    });
  }
  return {
    params: report.params,
    target: report.target,
    ranked,
    plots: plotted,
    warnings: report.warnings.map((w) => w.message),
    // Growth read off an uncertain model (repetitions too spread, runs too short to time) is no
    // finding to headline: its row says noisy or too short, and the JSON keeps the flag.
    scalabilityBugs: ranked.flatMap((r) =>
      [r.instructions, ...(r.time ? [r.time] : [])].flatMap((m, i) =>
        m.flags.some((flag) => UNCERTAIN.has(flag))
          ? []
          : m.actionFlags
              .filter((flag) => flag.startsWith('scalability-bug'))
              .map((flag) => ({ callpath: r.callpath, metric: i === 0 ? RANK_METRIC : TIME_METRIC, flag })),
      ),
    ),
  };
}

const UNCERTAIN = new Set(['unreliable', 'short-runs']);

/** What the status words and flag kinds shown in the ranking mean: only those that occur, statuses in STATUS_TEXT's order. */
export function rankingLegend(ranked: readonly RankedModel[]): {
  statuses: Array<[string, string]>;
  flags: Array<[string, string]>;
} {
  const models = ranked.flatMap((r) => [r.instructions, ...(r.time ? [r.time] : [])]);
  const statuses = (Object.keys(STATUS_TEXT) as ModelStatus[]).filter((status) =>
    models.some((m) => m.status === status),
  );
  const kinds = [...new Set(models.flatMap((m) => shownFlags(m).map((flag) => flag.split(':')[0]!)))];
  return {
    statuses: statuses.map((status) => [status, STATUS_TEXT[status]]),
    flags: kinds.map((kind) => [kind, kind === 'scalability-bug' ? SCALABILITY_TEXT : (FLAG_TEXT[kind] ?? kind)]),
  };
}

const SCALABILITY_TEXT = 'grows faster than the main work of the program and matters at the target';

/** The flags a table shows for a model: none where the call path is too short to time (no model to flag). */
export const shownFlags = (model: ModelSummary): string[] => (model.status === 'too short' ? [] : model.actionFlags);

function summary(model: CallpathModel): ModelSummary {
  return {
    model: model.model,
    leading: model.leading ?? null,
    prediction: model.prediction,
    smape: model.smape,
    exact: model.exact,
    status: modelStatus(model),
    flags: model.flags,
    actionFlags: actionFlags(model),
    prior: model.prior ? `${model.prior.status}: ${model.prior.params.join(', ') || 'constant'}` : null,
  };
}

/**
 * Every repetition on a line along `param` (the others held at their largest measured values where
 * the design measured that line, else at the base point's), and the model from there to the target.
 */
function parameterPlot(
  series: Series,
  model: CallpathModel,
  param: string,
  holds: Array<Record<string, number>>,
  target: Record<string, number>,
): ParameterPlot {
  const l = series.params.indexOf(param);
  const line = (hold: Record<string, number>) =>
    series.points.filter((point) => series.params.every((p, k) => k === l || point.coords[k] === hold[p]));
  const hold = holds.find((h) => line(h).length > 1) ?? holds.at(-1)!;
  const onLine = line(hold);
  const fixed = Object.fromEntries(series.params.filter((p) => p !== param).map((p) => [p, hold[p]!]));
  const measurements = onLine.flatMap((point) =>
    point.values.map((y, repetition) => ({ x: point.coords[l]!, y, repetition: repetition + 1 })),
  );
  const low = Math.min(...onLine.map((point) => point.coords[l]!));
  const high = Math.max(target[param]!, low);
  const at = (x: number) => evaluateModel(model.terms, { ...fixed, [param]: x });
  const curve = Array.from({ length: CURVE_SAMPLES + 1 }, (_, i) => {
    const x = low * (high / low) ** (i / CURVE_SAMPLES);
    return { x, y: at(x) };
  });
  return {
    metric: series.metric,
    param,
    fixed,
    measurements,
    model: curve,
    target: { x: target[param]!, y: at(target[param]!) },
  };
}
