// `taintlens model`'s action: reads the measurements (and the taint report), models every call path
// and prints or writes the models.
import { UserError } from '../../util/errors.js';
import { writeJsonAtomic } from '../../util/atomic-write.js';
import { startProgress } from '../../util/progress.js';
import { isLibraryFunction } from '../../../instrument/debug/library-code.js';
import { emit } from '../output.js';
import { detectFormat, readMeasurements, type MeasurementFormat } from '../../io/measurements.js';
import { readInputText } from '../../util/read-file.js';
import { outputWidth, proseWidth } from '../../report/terminal.js';
import { readTaintReport } from '../../io/taint.js';
import { modelsDocument, renderModels } from '../../io/models.js';
import { DEFAULT_GROWTH, modelExperiment, type FitMode, type GrowthThreshold } from '../../model/modeler.js';
import type { Aggregate } from '../../model/types.js';

interface ModelCommandOptions {
  taint?: string;
  target?: string;
  metric?: string;
  aggregate: Aggregate;
  fit: FitMode;
  growthThreshold?: string;
  format?: MeasurementFormat;
  json?: boolean;
  output?: string;
  wide?: boolean;
  all?: boolean;
}

function parseNumber(text: string, what: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UserError(`${what}: "${text}" is not a number`);
  return value;
}

/** "p=1024,n=4096" → { p: 1024, n: 4096 }; every measured parameter needs a positive value. */
export function parseTarget(text: string, params: readonly string[]): Record<string, number> {
  const target: Record<string, number> = {};
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([^=\s]+)\s*=\s*(.+)$/.exec(part);
    if (!match) throw new UserError(`--target: expected name=value, got "${part}"`);
    const [, name, value] = match as unknown as [string, string, string];
    if (!params.includes(name))
      throw new UserError(`--target: unknown parameter "${name}" (measured: ${params.join(', ')})`);
    const number = parseNumber(value, `--target ${name}`);
    if (!(number > 0)) throw new UserError(`--target: ${name} must be positive`);
    target[name] = number;
  }
  const missing = params.filter((p) => target[p] === undefined);
  if (missing.length > 0) throw new UserError(`--target: no value for ${missing.join(', ')}`);
  return target;
}

/** "auto" (the main work's growth, default), "1" (every parameter), "n=2,p=1", or both: "1,n=2". */
export function parseGrowthThreshold(text: string, params: readonly string[]): GrowthThreshold {
  const growth: GrowthThreshold = { default: DEFAULT_GROWTH.default, perParam: {} };
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([^=\s]+)\s*=\s*(.+)$/.exec(part);
    if (!match) {
      growth.default = part === 'auto' ? 'auto' : parseNumber(part, '--growth-threshold');
      continue;
    }
    const [, name, value] = match as unknown as [string, string, string];
    if (!params.includes(name))
      throw new UserError(`--growth-threshold: unknown parameter "${name}" (measured: ${params.join(', ')})`);
    growth.perParam[name] = parseNumber(value, `--growth-threshold ${name}`);
  }
  return growth;
}

export function modelAction(file: string, options: ModelCommandOptions): void {
  const experiment = readMeasurements(file, options.format);
  // JSON Lines time is in ms (taintlens measure's); Extra-P's formats say nothing about units.
  const format = options.format ?? detectFormat(readInputText(file), file);
  const taint = options.taint ? readTaintReport(options.taint) : undefined;
  const metrics = [...new Set(experiment.series.map((series) => series.metric))];
  if (options.metric !== undefined && !metrics.includes(options.metric)) {
    throw new UserError(`${file}: no metric "${options.metric}" (found: ${metrics.join(', ')})`);
  }
  const target = options.target !== undefined ? parseTarget(options.target, experiment.params) : undefined;
  const growth =
    options.growthThreshold !== undefined
      ? parseGrowthThreshold(options.growthThreshold, experiment.params)
      : DEFAULT_GROWTH;
  const count = experiment.series.filter(
    (series) => options.metric === undefined || series.metric === options.metric,
  ).length;
  const progress = startProgress(count, 'modeling', process.stderr.isTTY === true && !options.json);
  let report;
  try {
    report = modelExperiment(experiment, {
      aggregate: options.aggregate,
      fit: options.fit,
      metric: options.metric,
      target,
      growth,
      taint,
      timeInMs: format === 'jsonl',
      wholeProgram: format === 'jsonl',
      onProgress: (callpath) => progress.tick(callpath),
      ...(options.all ? {} : { isLibrary: (fn: string) => isLibraryFunction(fn, [], false) }),
    });
  } finally {
    progress.stop();
  }
  const document = modelsDocument(report, file);
  if (options.output) writeJsonAtomic(options.output, document);
  emit(options.json === true, document, () =>
    renderModels(report, file, { wide: options.wide === true, width: outputWidth(), proseWidth: proseWidth() }),
  );
}
