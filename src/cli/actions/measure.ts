// `taintlens measure`'s action: runs the grid through the experiment engine and writes the
// measurements (resuming a previous run).
import { runHostOf } from '../wasi-options.js';
import { parseContextTreeBytes } from '../instrument-options.js';
import type { Command } from 'commander';
import { interruptible, keptCampaign } from '../interrupt.js';
import { keptPoints } from '../../experiment/resume.js';
import { parseRunOptions, type RunCliOptions } from '../run-options.js';
import { parseVary } from '../../experiment/grid.js';
import { startProgress } from '../../util/progress.js';
import { emit } from '../output.js';
import { UserError } from '../../util/errors.js';
import { readMeasurements } from '../../io/measurements.js';
import { MIN_MODEL_TIME_MS, shortRunsWarning, TIME_METRIC, wholeRunTime } from '../../model/design.js';
import { parseExperimentOptions, describeSelection, type ExperimentCliOptions } from '../experiment-options.js';
import { readWasmFile } from '../../../instrument/wasm-file.js';
import { runExperiment } from '../../experiment/experiment.js';
import { refuseInstrumented } from '../../../instrument/instrumented.js';
import { parseParamSpec } from '../../taint/analyze.js';
import { METRICS } from '../../experiment/campaign.js';

interface MeasureCliOptions extends RunCliOptions, ExperimentCliOptions {
  contextTree?: string;
  vary: string[];
  output: string;
  metrics: string;
  param: string[];
  taintReport?: string;
}

/** A warning when the whole runs just measured are too short to model their time. */
function shortRuns(output: string): string | undefined {
  const typical = wholeRunTime(readMeasurements(output, 'jsonl'));
  return typical !== undefined && typical < MIN_MODEL_TIME_MS
    ? shortRunsWarning(TIME_METRIC, typical).message
    : undefined;
}

export async function measureAction(file: string, options: MeasureCliOptions, command: Command): Promise<void> {
  const run = parseRunOptions(options, command.args.slice(1));
  if (options.vary.length === 0) throw new UserError('measure needs at least one --vary NAME=argK:v1,v2,...', 2);
  const parameters = options.vary.map(parseVary);
  const metrics = options.metrics.split(',').map((m) => m.trim());
  for (const metric of metrics) {
    if (!(METRICS as readonly string[]).includes(metric))
      throw new UserError(`--metrics: unknown metric '${metric}' (${METRICS.join(', ')})`, 2);
  }
  const experiment = parseExperimentOptions(options);
  const bytes = readWasmFile(file);
  refuseInstrumented(bytes, file);
  const taint = options.taintReport ? { report: options.taintReport } : { params: options.param.map(parseParamSpec) };
  const result = await interruptible(
    () => keptCampaign(keptPoints(options.output), options.output),
    () =>
      runExperiment(
        {
          file,
          bytes,
          invoke: run.invoke,
          args: run.args,
          argv: run.argv,
          parameters,
          repetitions: run.repeat,
          metrics: metrics as (typeof METRICS)[number][],
          mode: experiment.mode,
          taint,
          trace: experiment.trace,
          design: experiment.design,
          timeoutMs: run.timeoutMs,
          ...(run.ranks !== undefined ? { ranks: run.ranks } : {}),
          ...runHostOf(options, parseContextTreeBytes(options)),
        },
        {
          output: options.output,
          jobs: experiment.jobs,
          progress: (points) => startProgress(points, 'measuring', !run.json && process.stderr.isTTY === true),
        },
      ),
  );
  const { campaign, selection, design } = result;
  const units = metrics.includes('time') ? { time: 'ms' } : {};
  const short = metrics.includes('time') ? shortRuns(options.output) : undefined;
  emit(
    run.json,
    {
      schema: 'taintlens/measure@1',
      module: file,
      output: options.output,
      ...campaign,
      units,
      warnings: short ? [short] : [],
      mode: selection.mode,
      rule: selection.rule,
      instrumentedFunctions: selection.functions?.length ?? 0,
      dropped: selection.dropped,
      design: {
        kind: design.kind,
        reason: design.reason,
        points: design.points.length,
        gridPoints: design.gridPoints,
        runsSaved: design.runsSaved,
      },
    },
    () =>
      [
        `${options.output}: ${campaign.measured} point(s) measured, ${campaign.resumed} already there, ${campaign.lines} line(s) written` +
          (metrics.includes('time') ? ' (time: wall time of the call in ms)' : ''),
        ...(selection.mode === 'none' ? [] : describeSelection(selection)),
        ...(design.kind === 'lines'
          ? [
              `design: ${design.reason}; ${design.points.length} of ${design.gridPoints} points, ${design.runsSaved} run(s) saved`,
            ]
          : []),
        ...(short ? [`warning: ${short}`] : []),
      ].join('\n'),
    short ? [short] : [],
  );
}
