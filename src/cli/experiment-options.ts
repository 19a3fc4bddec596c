// Options shared by the front ends of the experiment engine (measure, experiment): measurement
// mode, trace ring, parallel points and the design.
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { UserError } from '../util/errors.js';
import { isMeasureMode, MEASURE_MODES, type MeasureMode, type RegionSelection } from '../experiment/modes.js';

export interface ExperimentCliOptions {
  mode?: string;
  trace?: string;
  jobs?: string;
  design?: string;
}

export interface ParsedExperimentOptions {
  mode: MeasureMode;
  trace: number;
  jobs: number;
  design: 'grid' | 'auto';
}

export function addExperimentOptions(command: Command, defaultMode: string | null): Command {
  if (defaultMode !== null)
    command.option('--mode <mode>', `measurement instrumentation: ${MEASURE_MODES.join(', ')}`, defaultMode);
  return command
    .option(
      '--trace <n>',
      'keep the last N visits per region call path in a ring buffer (summary statistics are always kept)',
    )
    .option('--jobs <n>', 'points measured in parallel (worker threads; default: the number of cores)')
    .option(
      '--design <kind>',
      'grid (every point) or auto (taint-guided one-parameter lines where no function multiplies parameters)',
    );
}

export function parseExperimentOptions(options: ExperimentCliOptions): ParsedExperimentOptions {
  const mode = options.mode ?? 'none';
  if (!isMeasureMode(mode)) throw new UserError(`--mode: unknown mode '${mode}' (${MEASURE_MODES.join(', ')})`, 2);
  const trace = options.trace === undefined ? 0 : Number(options.trace);
  if (!Number.isInteger(trace) || trace < 0)
    throw new UserError(`--trace must be a whole number ≥ 0, got '${options.trace}'`, 2);
  const jobs = options.jobs === undefined ? availableParallelism() : Number(options.jobs);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new UserError(`--jobs must be a whole number ≥ 1, got '${options.jobs}'`, 2);
  const design = options.design ?? 'grid';
  if (design !== 'grid' && design !== 'auto') throw new UserError(`--design must be grid or auto, got '${design}'`, 2);
  return { mode, trace, jobs, design };
}

/** The mode's rule and what it left out, for the terminal. */
export function describeSelection(selection: RegionSelection): string[] {
  const lines = [
    `mode ${selection.mode}: ${selection.functions?.length ?? 0} function(s) instrumented — ${selection.rule}`,
  ];
  if (selection.mode === 'default' || selection.dropped.length <= 8) {
    for (const d of selection.dropped) lines.push(`  left out ${d.name}: ${d.why}`);
  } else {
    lines.push(
      `  left out ${selection.dropped.length} function(s): ${selection.dropped
        .slice(0, 6)
        .map((d) => d.name)
        .join(', ')}, ...`,
    );
  }
  return lines;
}
