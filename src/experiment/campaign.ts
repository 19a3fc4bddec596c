// An experiment campaign: run a kernel at every point of a parameter grid and append Extra-P JSON
// Lines measurements — wall time of the whole run (uninstrumented, per repetition, call path
// `<root>`) and exact instruction counts per call path, exclusive of callees like the taint
// report's per-function dependencies (loop profiler, deterministic: one line per point). Each
// point's lines are appended in one write, only once every run at the point succeeded, so a
// campaign that stops (or fails at a point) resumes at the first missing point.
import { appendFileSync } from 'node:fs';
import { runModule } from '../runtime/run.js';
import { profileLoops } from '../profile/profile-run.js';
import { readExports } from '../../instrument/exports.js';
import { argumentsAt, gridPoints, pointKey, type Point } from './grid.js';
import { identityOf, type CampaignDefinition } from './identity.js';
import { prepareOutput } from './resume.js';
import { withContext } from '../util/errors.js';
import type { Progress } from '../util/progress.js';
import { DEFAULT_CALLPATH } from '../io/measurements.js';

/** What the campaign measures (its identity, kept beside the output) and how it runs. */
export interface CampaignOptions extends CampaignDefinition {
  metrics: Array<'time' | 'instructions'>;
  timeoutMs: number;
  output: string;
  progress?: Progress;
}

export interface MeasurementLine {
  params: Point;
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
  const points = gridPoints(options.parameters);
  const done = prepareOutput(options.output, identityOf(options));
  const exports = readExports(options.bytes, options.file);
  let measured = 0;
  let lines = 0;
  for (const point of points) {
    if (done.has(pointKey(point))) {
      options.progress?.tick(`${describe(point)} (done before)`);
      continue;
    }
    let out: MeasurementLine[];
    try {
      out = await measurePoint(options, point, exports);
    } catch (error) {
      throw withContext(error, `at point ${describe(point)} (nothing stored for it)`);
    }
    appendFileSync(options.output, out.map((line) => JSON.stringify(line)).join('\n') + '\n');
    measured++;
    lines += out.length;
    options.progress?.tick(describe(point));
  }
  return { points: points.length, measured, resumed: points.length - measured, lines };
}

/** Every line of one grid point; throws (and nothing is stored) when any run at it fails. */
async function measurePoint(options: CampaignOptions, point: Point, exports: ReturnType<typeof readExports>): Promise<MeasurementLine[]> {
  const args = argumentsAt(point, options.parameters, 'arg', options.baseArgs);
  const argv = argumentsAt(point, options.parameters, 'argv', options.baseArgv);
  const out: MeasurementLine[] = [];
  if (options.metrics.includes('instructions')) {
    const profile = await profileLoops(options.file, options.bytes, {
      invoke: options.invoke, args, argv, repeat: 1, timeoutMs: options.timeoutMs, json: true,
    });
    for (const callpath of profile.callpaths) {
      out.push({ params: point, callpath: callpath.callpath, metric: 'instructions', value: callpath.instructions });
    }
  }
  if (options.metrics.includes('time')) {
    const outcome = await runModule({
      file: options.file, bytes: options.bytes, invoke: options.invoke, args, argv, repeat: options.repeat,
      timeoutMs: options.timeoutMs, exports,
    });
    for (const repetition of outcome.repetitions) {
      out.push({ params: point, callpath: DEFAULT_CALLPATH, metric: 'time', value: repetition.ms });
    }
  }
  return out;
}

function describe(point: Point): string {
  return Object.entries(point).map(([k, v]) => `${k}=${v}`).join(' ');
}
