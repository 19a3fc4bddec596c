// Models as documents: JSON (schema taintlens/models@1, see docs/model.md) and a table for people.
import { renderTable, type Column } from '../report/table.js';
import { schemaId } from '../util/schema.js';
import { fileError } from '../util/errors.js';
import { formatCoefficient, formatModel } from '../model/format.js';
import type { CallpathModel, MetricNoise, ModelsReport } from '../model/modeler.js';
import { MIN_MODEL_TIME_MS, MIN_VALUES_PER_PARAMETER, type DesignWarning } from '../model/design.js';
import { MAIN_WORK_SHARE, MIN_BUG_SHARE } from '../model/scalability.js';
import { MIN_CHECKS } from '../model/exact-flags.js';
import { MIN_CALLPATH_TIME_MS } from '../model/noise-findings.js';
import { displayPath, pathTail } from '../report/names.js';
import { wrap } from '../report/wrap.js';
import { actionFlags, modelStatus, STATUS_TEXT } from '../model/status.js';
import type { Term } from '../model/types.js';

export interface ModelsDocument {
  schema: string;
  source: string;
  params: string[];
  metrics: string[];
  aggregate: string;
  target: Record<string, number>;
  targetGiven: boolean;
  growthThreshold: { default: number | 'auto'; perParam: Record<string, number> };
  /** Per metric, with the 'auto' threshold: the growth of the main work per parameter. */
  mainWorkGrowth: Record<string, Record<string, { exponent: number; log: number }>>;
  taint: string | null;
  /** With --taint: how many call paths (other than `<root>`) found their function in the report. */
  taintMatch: { matched: number; callpaths: number; share: number } | null;
  /** Units of the metrics where known (`time` from JSON Lines: ms). */
  units: Record<string, string>;
  /** Problems of the experiment as a whole: `{kind, message, param?, metric?}`. */
  warnings: DesignWarning[];
  /** Per metric: the noise shape read off the repetitions and the fit it chose. */
  noise: NoiseEntry[];
  models: ModelEntry[];
  /** Library call paths (libc: printf_core, atoi, malloc, …) folded into their program callers; 0 with --all. */
  foldedLibraryCallpaths: number;
}

export interface NoiseEntry {
  metric: string;
  shape: string;
  excessKurtosis: number | null;
  standardError: number | null;
  samples: number;
  fit: string;
}

export interface ModelEntry {
  callpath: string;
  metric: string;
  params: string[];
  model: string;
  /** `fraction`: a closed form's exact coefficient where it is not an integer (`"23/3"`). */
  terms: { coefficient: number; factors: { param: string; exponent: number; log: number }[]; fraction?: string }[];
  cv: number;
  smape: number;
  flags: string[];
  loo: number | null;
  cvMax: number;
  points: number;
  repetitions: number;
  dependsOn: string[];
  growth: Record<string, { exponent: number; log: number }>;
  prediction: number | null;
  rank: number;
  alternative?: { model: string; terms: ModelEntry['terms']; basis: string };
  prior?: { function: string; status: string; params: string[] };
  /** The model reproduces every point of exact data (identical repetitions). */
  exact: boolean;
  /** With an exact model: its leading terms, as text and as terms. */
  leading?: string;
  leadingTerms?: ModelEntry['terms'];
  /** Where the leading terms would carry half of the value (flag lower-order). */
  leadingShowsAt?: Record<string, number>;
  /** A noisy metric fitted with the exact counts' term set (accepted) or rejected by the data. */
  countsShape?: { model: string; metric: string; accepted: boolean };
  /** A noisy metric: noise variances the model's growth explains beyond a constant (a growth finding needs 25). */
  aboveNoise?: number;
}

/** JSON has no NaN or Infinity. */
function finite(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

function round(value: number, digits = 6): number {
  return Number.isFinite(value) ? Number(value.toPrecision(digits)) : 0;
}

function termsJson(terms: readonly Term[]): ModelEntry['terms'] {
  return terms.map((term) => ({
    coefficient: finite(term.coefficient) ?? 0,
    factors: term.factors.map((factor) => ({ param: factor.param, exponent: factor.exponent, log: factor.log })),
    ...(term.fraction !== undefined ? { fraction: term.fraction } : {}),
  }));
}

function entryOf(model: CallpathModel): ModelEntry {
  return {
    callpath: model.callpath,
    metric: model.metric,
    params: model.params,
    model: model.model,
    terms: termsJson(model.terms),
    cv: round(model.cv),
    smape: round(model.smape),
    flags: model.flags,
    loo: Number.isFinite(model.loo) ? round(model.loo) : null,
    cvMax: round(model.cvMax),
    points: model.points,
    repetitions: round(model.repetitions, 4),
    dependsOn: model.dependsOn,
    growth: model.growth,
    prediction: finite(model.prediction),
    rank: model.rank,
    ...(model.alternative
      ? {
          alternative: {
            model: model.alternative.model,
            terms: termsJson(model.alternative.terms),
            basis: model.alternative.basis,
          },
        }
      : {}),
    ...(model.prior ? { prior: model.prior } : {}),
    exact: model.exact,
    ...(model.leading !== undefined
      ? { leading: model.leading, leadingTerms: termsJson(model.leadingTerms ?? []) }
      : {}),
    ...(model.leadingShowsAt ? { leadingShowsAt: model.leadingShowsAt } : {}),
    ...(model.countsShape ? { countsShape: model.countsShape } : {}),
    ...(model.aboveNoise !== undefined ? { aboveNoise: model.aboveNoise } : {}),
  };
}

export function modelsDocument(report: ModelsReport, source: string): ModelsDocument {
  return {
    schema: schemaId('models'),
    source,
    params: report.params,
    metrics: report.metrics,
    aggregate: report.aggregate,
    target: report.target,
    targetGiven: report.targetGiven,
    growthThreshold: report.growth,
    mainWorkGrowth: report.mainWorkGrowth,
    taint: report.taint,
    taintMatch: report.taintMatch && { ...report.taintMatch, share: round(report.taintMatch.share, 4) },
    units: report.units,
    warnings: report.warnings,
    noise: report.noise.map((n) => ({
      metric: n.metric,
      shape: n.shape,
      excessKurtosis: Number.isFinite(n.excessKurtosis) ? round(n.excessKurtosis, 4) : null,
      standardError: Number.isFinite(n.standardError) ? round(n.standardError, 3) : null,
      samples: n.samples,
      fit: n.fit,
    })),
    models: report.models.map(entryOf),
    foldedLibraryCallpaths: report.foldedLibraryCallpaths,
  };
}

/** Reads back a models document (to predict or compare later); validates what it uses. */
export function parseModelsDocument(json: unknown, file: string): ModelsDocument {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw fileError(file, 'expected a JSON object');
  const document = json as Partial<ModelsDocument>;
  if (document.schema !== schemaId('models')) {
    throw fileError(
      file,
      `not a models document (schema ${JSON.stringify(document.schema)}, expected "${schemaId('models')}")`,
    );
  }
  if (!Array.isArray(document.models)) throw fileError(file, '"models" must be a list');
  document.models.forEach((entry, i) => {
    const ok =
      typeof entry === 'object' &&
      entry !== null &&
      typeof entry.callpath === 'string' &&
      Array.isArray(entry.terms) &&
      entry.terms.every(
        (term) =>
          typeof term.coefficient === 'number' &&
          Array.isArray(term.factors) &&
          term.factors.every(
            (f) => typeof f.param === 'string' && typeof f.exponent === 'number' && typeof f.log === 'number',
          ),
      );
    if (!ok)
      throw fileError(
        file,
        `models[${i}]: expected callpath and terms [{coefficient, factors: [{param, exponent, log}]}]`,
      );
  });
  return document as ModelsDocument;
}

/** Terms of a models-document entry, ready for evaluateModel/formatModel. */
export function entryTerms(entry: ModelEntry): Term[] {
  return entry.terms.map((term) => ({
    coefficient: term.coefficient,
    factors: term.factors.map((f) => ({ ...f })),
    ...(typeof term.fraction === 'string' ? { fraction: term.fraction } : {}),
  }));
}

export const FLAG_TEXT: Record<string, string> = {
  unreliable: 'repetitions vary by more than 10% (coefficient of variation): the model is uncertain',
  contention:
    'the measurements grow with a parameter the code cannot depend on (contention or an outside effect); the model follows the measurements',
  'too-narrow': 'the code depends on a parameter the measurements do not show (experiment too narrow?)',
  branch:
    "the measurements grow with a parameter that reaches only the function's branches (algorithm selection), not its loops; the model follows the measurements",
  interaction: 'the measurements combine parameters the loop nests keep apart; the model follows the measurements',
  refined: 'exponent refined off the grid',
  'few-points': `fewer than ${MIN_VALUES_PER_PARAMETER} values of this parameter (Extra-P's minimum): with two it is not modeled, with three or four its exponent is poorly determined`,
  'not-varied': 'this parameter was measured at one value only: the model cannot depend on it',
  'short-runs': `the whole run's median time over the points is under ${MIN_MODEL_TIME_MS} ms: fixed costs dominate, the model of time extrapolates badly`,
  'taint-missing': 'function not in the taint report: not restricted',
  inexact:
    'every repetition is identical (exact data), but no polynomial/log closed form reproduces every point: the model shown is only the best inexact fit',
  'few-checks': `the exact closed form leaves fewer than ${MIN_CHECKS} points beyond its coefficients to check it: measure more sizes`,
  'lower-order':
    'lower-order terms outweigh the leading term at the largest measured point: the grid shows little of the leading term (see where it would show, below)',
  'beyond-nest':
    'grows faster than the loop depth the taint report gives for this parameter allows (x^e·log2^g x needs ⌈e⌉ + g nested loops): a trip count that is not linear in it, or work the nest does not explain; the model follows the measurements',
  'more-values':
    'exact data: along this parameter no closed form of the space fits with a value to spare: measure more values of it (a count with as many functions of it as values, e.g. 1, n, n·log2 n, log2 n, n²·log2 n on five sizes), unless the count is outside the space',
  'counts-shaped':
    'fitted with the term set of the exact model of this metric (coefficients refitted): the data do not reject it',
  'too-short': `the call path's median time is under ${MIN_CALLPATH_TIME_MS} ms: timer resolution and tier-up, too short to model; its median is shown (model instructions instead)`,
  'parts-sum':
    "the whole run's own model predicts less than its call paths together at the target: the prediction shown is their sum",
  'counts-disagree':
    'the data reject the term set of the exact model of this metric: time and counts grow differently (memory-bound, contention)',
};

const FIT_TEXT: Record<string, string> = {
  minimax: 'shapes chosen by how tightly they cover every repetition',
  'least-squares': 'shapes chosen by least squares on the aggregated values',
};

function noiseLine(noise: MetricNoise): string {
  const kurtosis = Number.isFinite(noise.excessKurtosis)
    ? `excess kurtosis ${noise.excessKurtosis.toFixed(2)} ± ${noise.standardError.toFixed(2)} over ${noise.samples} repetitions`
    : 'no repetitions to judge by';
  return `noise: ${noise.shape} (${kurtosis}); ${FIT_TEXT[noise.fit] ?? noise.fit}`;
}

function flagKind(flag: string): string {
  return flag.split(':')[0]!;
}

export interface RenderOptions {
  /** Fit tables and lines to this width (call paths keep their last elements). */
  width?: number;
  /** Keep call paths whole and tables as wide as they need. */
  wide?: boolean;
  /** Wrap prose lines to this width (default: no wrapping). */
  proseWidth?: number;
}

function scalabilityText(report: ModelsReport): string {
  const fixed = Object.entries(report.growth.perParam).map(([p, t]) => `${p}^${t}`);
  if (report.growth.default === 'auto') {
    const tail = fixed.length > 0 ? `; fixed for ${fixed.join(', ')}` : '';
    return (
      `grows faster than the main work (the call paths making up ${100 * MAIN_WORK_SHARE}% of the metric at the largest ` +
      `measured point) and reaches ${100 * MIN_BUG_SHARE}% of the total at the target${tail}`
    );
  }
  return `grows faster than x^${report.growth.default}${fixed.length > 0 ? ` (${fixed.join(', ')})` : ''}`;
}

/** A model too wide for its column breaks between terms: `2 + 0.5 * p` / `+ 3 * n`. */
function termLines(model: string, width: number): string[] {
  const lines: string[] = [];
  for (const term of model.split(/ (?=[+-] )/)) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + term.length <= width) lines[last] += ` ${term}`;
    else lines.push(term);
  }
  return lines;
}

/** A perfect fit through as many points as coefficients says nothing: shown as `-`. */
function smapeText(model: CallpathModel): string {
  if (model.exact) return 'exact';
  if (model.flags.includes('too-short')) return '-';
  return model.points <= model.terms.length ? '-' : `${model.smape.toFixed(2)}%`;
}

/** The human view: one table per metric, then a legend of the flags that occur. */
export function renderModels(report: ModelsReport, source: string, options: RenderOptions = {}): string {
  const out: string[] = [];
  const width = options.wide ? Infinity : (options.width ?? Infinity);
  const prose = options.wide ? Infinity : (options.proseWidth ?? Infinity);
  const where = Object.entries(report.target)
    .map(([p, v]) => `${p}=${formatCoefficient(v)}`)
    .join(', ');
  const columns: Column<CallpathModel>[] = [
    { header: 'rank', value: (m) => m.rank },
    {
      header: 'callpath',
      value: (m) => (options.wide ? m.callpath : displayPath(m.callpath)),
      shrink: pathTail,
      max: 40,
      min: 16,
      shrinkOrder: 0,
    },
    {
      header: 'model',
      value: (m) => (m.flags.includes('too-short') ? `too short to model (${m.model} ms)` : m.model),
      shrink: termLines,
      min: 24,
    },
    { header: 'leading', value: (m) => m.leading ?? '-', shrink: termLines, min: 10 },
    { header: 'SMAPE', value: smapeText, align: 'right' },
    {
      header: report.targetGiven ? 'predicted' : 'at largest',
      value: (m) => formatCoefficient(m.prediction),
      align: 'right',
    },
    { header: 'status', value: modelStatus },
    // A flag is never cut: the column keeps at least the longest one.
    {
      header: 'flags',
      value: (m) => actionFlags(m).join(' '),
      shrink: 'wrap',
      min: Math.max(5, ...report.models.flatMap((m) => actionFlags(m).map((flag) => flag.length))),
    },
  ];
  const layout = { wide: options.wide === true, ...(Number.isFinite(width) ? { width } : {}) };
  for (const metric of report.metrics) {
    const models = report.models.filter((model) => model.metric === metric);
    // The leading-term column only where some model is an exact closed form.
    const shown = models.some((model) => model.exact)
      ? columns
      : columns.filter((column) => column.header !== 'leading');
    const reps = models.length ? Math.round(models.reduce((sum, m) => sum + m.repetitions, 0) / models.length) : 0;
    const unit = report.units[metric] ? ` (${report.units[metric]})` : '';
    out.push(
      wrap(
        `${metric}${unit}: ${models.length} call path${models.length === 1 ? '' : 's'} of ${source} over ${report.params.join(', ')} ` +
          `(${report.aggregate} of ${reps} repetition${reps === 1 ? '' : 's'}), ranked by the value ` +
          `${report.targetGiven ? 'predicted at' : 'at the largest measured point'} ${where}` +
          (report.taint ? `; taint prior from ${report.taint}` : ''),
        prose,
      ),
    );
    const noise = report.noise.find((n) => n.metric === metric);
    const exactData = models.length > 0 && models.every((model) => model.exact || model.flags.includes('inexact'));
    if (exactData)
      out.push(
        wrap(
          'noise: none (every repetition identical): exact data, solved for closed forms that reproduce every point',
          prose,
        ),
      );
    else if (noise) out.push(wrap(noiseLine(noise), prose));
    out.push('');
    out.push(renderTable(models, shown, layout));
    out.push('');
  }
  for (const model of report.models) {
    if (!model.flags.includes('lower-order')) continue;
    const shows = model.leadingShowsAt
      ? `it would from ${Object.entries(model.leadingShowsAt)
          .map(([p, v]) => `${p}=${formatCoefficient(v)}`)
          .join(', ')}`
      : 'not within 2^30 times the largest sizes';
    out.push(
      wrap(
        `lower-order: ${displayPath(model.callpath)} (${model.metric}): ${model.leading} carries under half of the value at the largest measured point; ${shows}`,
        prose,
        '  ',
      ),
    );
  }
  if (report.foldedLibraryCallpaths > 0) {
    out.push(
      wrap(
        `${report.foldedLibraryCallpaths} call path(s) of library code (libc, the runtime) folded into their callers; --all models them`,
        prose,
        '  ',
      ),
    );
  }
  for (const warning of report.warnings) out.push(wrap(`warning: ${warning.message}`, prose, '  '));
  if (report.warnings.length > 0) out.push('');
  const statuses = [...new Set(report.models.map(modelStatus))];
  out.push('status:');
  for (const status of statuses) out.push(wrap(`  ${status}: ${STATUS_TEXT[status]}`, prose, '    '));
  const kinds = [...new Set(report.models.flatMap((model) => actionFlags(model).map(flagKind)))];
  if (kinds.length > 0) {
    out.push('flags:');
    for (const kind of kinds)
      out.push(
        wrap(
          `  ${kind}: ${kind === 'scalability-bug' ? scalabilityText(report) : (FLAG_TEXT[kind] ?? kind)}`,
          prose,
          '    ',
        ),
      );
  }
  return out.join('\n');
}

export { formatModel };
