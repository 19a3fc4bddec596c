// `taintlens measure`: the quick front end of the experiment engine (src/experiment/experiment.ts):
// a parameter grid from --vary, written as Extra-P JSON Lines for `taintlens model` (and for
// Extra-P itself). Resumes where a previous run stopped.
import type { Command } from 'commander';
import { addRunOptions, parseRunOptions, type RunCliOptions } from '../run-options.js';
import { parseVary } from '../../experiment/grid.js';
import { startProgress } from '../../util/progress.js';
import { emit } from '../output.js';
import { UserError } from '../../util/errors.js';
import { readMeasurements } from '../../io/measurements.js';
import { MIN_MODEL_TIME_MS, shortRunsWarning, TIME_METRIC, wholeRunTime } from '../../model/design.js';
import { addExperimentOptions, parseExperimentOptions, describeSelection, type ExperimentCliOptions } from '../experiment-options.js';
import { addContextTreeOption, parseContextTreeBytes } from '../instrument-options.js';
import { runHostOf } from '../wasi-options.js';

interface MeasureCliOptions extends RunCliOptions, ExperimentCliOptions {
  contextTree?: string;
  vary: string[];
  output: string;
  metrics: string;
  param: string[];
  taintReport?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** A warning when the whole runs just measured are too short to model their time. */
function shortRuns(output: string): string | undefined {
  const typical = wholeRunTime(readMeasurements(output, 'jsonl'));
  return typical !== undefined && typical < MIN_MODEL_TIME_MS ? shortRunsWarning(TIME_METRIC, typical).message : undefined;
}

export function registerMeasure(program: Command): void {
  addContextTreeOption(addExperimentOptions(addRunOptions(
    program.command('measure <module>')
      .description('run a kernel over a parameter grid and write measurements (Extra-P JSON Lines): time, instructions and visits per call path')
      .usage('<module> --vary NAME=argK:v1,v2,... [--vary ...] [--args base,...] [--ranks P] [--repeat K] [--mode M] -o measurements.jsonl [-- argv...]')
      .option('--vary <spec>', 'a varied parameter: NAME=argK:v1,v2,... (export argument K), NAME=argvK:... (WASI argv[K]) or NAME=ranks:... (SPMD ranks); repeatable', collect, [])
      .requiredOption('-o, --output <file>', 'measurements file (JSON Lines); an existing one is resumed')
      .option('--metrics <list>', 'what to measure: time (ms), instructions, visits', 'time,instructions')
      .option('--param <spec>', 'selective mode / --design auto: mark a parameter for the taint analysis, NAME=argK or NAME=global:EXPORT; repeatable', collect, [])
      .option('--taint-report <file>', 'selective mode / --design auto: use this taint report (taintlens taint --json) instead of running the analysis'),
    5,
  ), 'none')).action(async (file: string, options: MeasureCliOptions, command: Command) => {
    const { readWasmFile } = await import('../../../instrument/module-io.js');
    const { runExperiment } = await import('../../experiment/experiment.js');
    const { refuseInstrumented } = await import('../../../instrument/instrumented.js');
    const { parseParamSpec } = await import('../../taint/analyze.js');
    const { METRICS } = await import('../../experiment/campaign.js');
    const run = parseRunOptions(options, command.args.slice(1));
    if (options.vary.length === 0) throw new UserError('measure needs at least one --vary NAME=argK:v1,v2,...', 2);
    const parameters = options.vary.map(parseVary);
    const metrics = options.metrics.split(',').map((m) => m.trim());
    for (const metric of metrics) {
      if (!(METRICS as readonly string[]).includes(metric)) throw new UserError(`--metrics: unknown metric '${metric}' (${METRICS.join(', ')})`, 2);
    }
    const experiment = parseExperimentOptions(options);
    const bytes = readWasmFile(file);
    refuseInstrumented(bytes, file);
    const taint = options.taintReport ? { report: options.taintReport } : { params: options.param.map(parseParamSpec) };
    const result = await runExperiment({
      file, bytes, invoke: run.invoke, args: run.args, argv: run.argv, parameters, repetitions: run.repeat,
      metrics: metrics as typeof METRICS[number][], mode: experiment.mode, taint, trace: experiment.trace, design: experiment.design,
      timeoutMs: run.timeoutMs, ...(run.ranks !== undefined ? { ranks: run.ranks } : {}), ...runHostOf(options, parseContextTreeBytes(options)),
    }, {
      output: options.output, jobs: experiment.jobs,
      progress: (points) => startProgress(points, 'measuring', !run.json && process.stderr.isTTY === true),
    });
    const { campaign, selection, design } = result;
    const units = metrics.includes('time') ? { time: 'ms' } : {};
    const short = metrics.includes('time') ? shortRuns(options.output) : undefined;
    emit(run.json, {
      schema: 'taintlens/measure@1', module: file, output: options.output, ...campaign, units, warnings: short ? [short] : [],
      mode: selection.mode, rule: selection.rule, instrumentedFunctions: selection.functions?.length ?? 0, dropped: selection.dropped,
      design: { kind: design.kind, reason: design.reason, points: design.points.length, gridPoints: design.gridPoints, runsSaved: design.runsSaved },
    }, () => [
      `${options.output}: ${campaign.measured} point(s) measured, ${campaign.resumed} already there, ${campaign.lines} line(s) written` +
        (metrics.includes('time') ? ' (time: wall time of the call in ms)' : ''),
      ...(selection.mode === 'none' ? [] : describeSelection(selection)),
      ...(design.kind === 'lines' ? [`design: ${design.reason}; ${design.points.length} of ${design.gridPoints} points, ${design.runsSaved} run(s) saved`] : []),
      ...(short ? [`warning: ${short}`] : []),
    ].join('\n'));
  });
}
