// `taintlens measure`: an experiment campaign over a parameter grid, written as Extra-P JSON Lines
// for `taintlens model` (and for Extra-P itself). Resumes where a previous run stopped.
import type { Command } from 'commander';
import { addRunOptions, parseRunOptions, type RunCliOptions } from '../run-options.js';
import { parseVary } from '../../experiment/grid.js';
import { startProgress } from '../../util/progress.js';
import { emit } from '../output.js';
import { UserError } from '../../util/errors.js';
import { readMeasurements } from '../../io/measurements.js';
import { MIN_MODEL_TIME_MS, shortRunsWarning, TIME_METRIC, wholeRunTime } from '../../model/design.js';

interface MeasureCliOptions extends RunCliOptions {
  vary: string[];
  output: string;
  metrics: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** A warning when the whole runs just measured are too short to model their time. */
function shortRuns(output: string): string | undefined {
  const typical = wholeRunTime(readMeasurements(output, 'jsonl'));
  return typical !== undefined && typical < MIN_MODEL_TIME_MS ? shortRunsWarning(TIME_METRIC, typical).message : undefined;
}

export function registerMeasure(program: Command): void {
  addRunOptions(
    program.command('measure <module>')
      .description('run a kernel over a parameter grid and write measurements (Extra-P JSON Lines): time and instructions per call path')
      .usage('<module> --vary NAME=argK:v1,v2,... [--vary ...] [--args base,...] [--repeat K] -o measurements.jsonl [-- argv...]')
      .option('--vary <spec>', 'a varied parameter: NAME=argK:v1,v2,... (export argument K) or NAME=argvK:... (WASI argv[K]); repeatable', collect, [])
      .requiredOption('-o, --output <file>', 'measurements file (JSON Lines); an existing one is resumed')
      .option('--metrics <list>', 'what to measure: time (ms), instructions', 'time,instructions'),
    5,
  ).action(async (file: string, options: MeasureCliOptions, command: Command) => {
    const { readWasmFile } = await import('../../../instrument/module-io.js');
    const { runCampaign } = await import('../../experiment/campaign.js');
    const { refuseInstrumented } = await import('../../../instrument/instrumented.js');
    const run = parseRunOptions(options, command.args.slice(1));
    if (options.vary.length === 0) throw new UserError('measure needs at least one --vary NAME=argK:v1,v2,...', 2);
    const parameters = options.vary.map(parseVary);
    const metrics = options.metrics.split(',').map((m) => m.trim());
    for (const metric of metrics) {
      if (metric !== 'time' && metric !== 'instructions') throw new UserError(`--metrics: unknown metric '${metric}' (time, instructions)`, 2);
    }
    const bytes = readWasmFile(file);
    refuseInstrumented(bytes, file);
    const total = parameters.reduce((n, p) => n * p.values.length, 1);
    const progress = startProgress(total, 'measuring', !run.json && process.stderr.isTTY === true);
    let summary: Awaited<ReturnType<typeof runCampaign>>;
    try {
      summary = await runCampaign({
        file, bytes, invoke: run.invoke, baseArgs: run.args, baseArgv: run.argv,
        parameters, repeat: run.repeat, timeoutMs: run.timeoutMs, output: options.output,
        metrics: metrics as Array<'time' | 'instructions'>, progress,
      });
    } finally {
      // Before the summary: stopping erases the bar's line, and with it anything printed after it.
      progress.stop();
    }
    const units = metrics.includes('time') ? { time: 'ms' } : {};
    const short = metrics.includes('time') ? shortRuns(options.output) : undefined;
    emit(run.json, { schema: 'taintlens/measure@1', module: file, output: options.output, ...summary, units, warnings: short ? [short] : [] }, () =>
      `${options.output}: ${summary.measured} point(s) measured, ${summary.resumed} already there, ${summary.lines} line(s) written` +
      (metrics.includes('time') ? ' (time: wall time of the call in ms)' : '') +
      (short ? `\nwarning: ${short}` : ''));
  });
}
