// Models for every call path of an experiment: aggregation, the search, the taint prior's checks,
// extrapolation to a target point, ranking and scalability flags.
import { aggregate, spreadOf, UNRELIABLE_CV } from './aggregate.js';
import { FULL_SHAPES, EXTRAP_SHAPES, type Shape } from './exponents.js';
import {
  checkTarget,
  designFlags,
  designWarnings,
  MIN_MODEL_TIME_MS,
  shortRunsWarning,
  taintMismatchWarning,
  TIME_METRIC,
  typicalTime,
  ROOT_CALLPATH,
  valuesPerParameter,
  type DesignWarning,
} from './design.js';
import { growthOf, mainWorkGrowth, scalabilityFlags, type Growth, type GrowthThreshold } from './scalability.js';
export { compareGrowth, DEFAULT_GROWTH, exceeds, growthOf, type Growth, type GrowthThreshold } from './scalability.js';
import { repetitionBounds } from './bounded.js';
import { evaluateModel, formatModel } from './format.js';
import { estimateNoise, type NoiseEstimate } from './noise.js';
import { PointSetCache, type PointSet } from './pointset.js';
import { priorFor, type CallpathPrior, type TaintView } from './prior.js';
import {
  defaultSearchOptions,
  leaveOneOutError,
  popcount,
  searchModel,
  type Fit,
  type SearchOptions,
} from './search.js';
import type { Aggregate, Experiment, Series, Term } from './types.js';
import type { FitMode } from './fit-modes.js';
import { smape } from './smape.js';
export { smape } from './smape.js';
import {
  COUNT_TOLERANCE,
  EXACT_TOLERANCE,
  isExactData,
  exactModel,
  unexplainedAlong,
  type ExactModel,
  type ExactSpace,
} from './exact.js';
import { growthAboveNoise, keepAboveNoise, MIN_CALLPATH_TIME_MS } from './noise-findings.js';
import { formatLeading, leadingShare, leadingShowsAt, leadingTerms, LEADING_SHARE } from './leading.js';
import { foldLibraryCallpaths } from './fold.js';
import {
  isSummedMetric,
  OUTSIDE_REGIONS,
  wholeAtLeastParts,
  wholeForm,
  withWholeProgram,
  type WholeForm,
} from './root.js';
import { countsShapeFor, fitCountsShape, MIN_CHECKS, nestFlags, type CountsShape } from './exact-flags.js';

export interface ModelingOptions {
  aggregate: Aggregate;
  /** Model only this metric (default: every metric). */
  metric?: string;
  /** Extrapolate to this point (default: the largest measured value of each parameter). */
  target?: Record<string, number>;
  growth: GrowthThreshold;
  taint?: TaintView;
  /** The `time` metric is in milliseconds (taintlens measure's JSON Lines): runs too short to model are flagged. */
  timeInMs?: boolean;
  /** 'full': all 59 shapes (default); 'extrap': Extra-P's 42 default building blocks. */
  shapes?: 'full' | 'extrap';
  search?: Partial<SearchOptions>;
  /**
   * How shapes are chosen: 'auto' (default) by how tightly they cover every repetition where the
   * repetitions show bounded noise, else by least squares on the aggregated values.
   */
  fit?: FitMode;
  onProgress?: (callpath: string) => void;
  /**
   * Library code (libc's printf_core, atoi, malloc, …): its call paths are folded into their
   * nearest program caller before modelling (foldLibraryCallpaths). Absent: every call path is modeled.
   */
  isLibrary?: (fn: string) => boolean;
  /**
   * The call paths are exclusive costs of one program (taintlens measure's JSON Lines): `<root>` is
   * the whole program, the sum of its parts where no metric of its own was measured (root.ts).
   */
  wholeProgram?: boolean;
}

export { FIT_MODES, type FitMode } from './fit-modes.js';

/** What the repetitions of one metric say about the noise, and the fit that follows from it. */
export interface MetricNoise extends NoiseEstimate {
  metric: string;
  fit: Exclude<FitMode, 'auto'>;
}

export interface CallpathModel {
  callpath: string;
  metric: string;
  params: string[];
  model: string;
  terms: Term[];
  /** Mean coefficient of variation of the repetitions over the points. */
  cv: number;
  cvMax: number;
  /** Symmetric mean absolute percentage error of the model at the measured points, in %. */
  smape: number;
  /** Leave-one-out (cross-validated) relative RMS error of the model, in %. */
  loo: number;
  points: number;
  repetitions: number;
  /** Parameters the model depends on. */
  dependsOn: string[];
  /** Leading growth per parameter the model depends on. */
  growth: Record<string, Growth>;
  flags: string[];
  /** The model's value at the target (or the largest measured point). */
  prediction: number;
  /** 1 = the largest prediction among the call paths of the same metric. */
  rank: number;
  /**
   * The other candidate when a taint prior was given and the two differ: the best model ignoring
   * the prior ('measurements'), or, when the measurements contradict the prior significantly
   * (contention, interaction) and so `model` follows the measurements, the prior's ('taint prior').
   */
  alternative?: { model: string; terms: Term[]; basis: AlternativeBasis };
  prior?: { function: string; status: CallpathPrior['status']; params: string[] };
  /** The model reproduces every point of exact data (identical repetitions). */
  exact: boolean;
  /** With an exact model: its leading terms (`128 * t * n^3`). */
  leading?: string;
  leadingTerms?: Term[];
  /** With an exact model whose leading terms do not dominate on the grid: where they would. */
  leadingShowsAt?: Record<string, number>;
  /** A noisy metric fitted with the term set of the same call path's exact counts (coefficients refitted). */
  countsShape?: { model: string; metric: string; accepted: boolean };
  /**
   * A noisy metric: how many noise variances of the aggregated values the model's growth explains
   * beyond a constant (a growth finding needs MIN_GROWTH_ABOVE_NOISE); absent for exact data and
   * where there are no repetitions to judge by.
   */
  aboveNoise?: number;
}

export interface ModelsReport {
  params: string[];
  metrics: string[];
  aggregate: Aggregate;
  /** Where predictions are made, and whether that was asked for (--target) or defaulted. */
  target: Record<string, number>;
  targetGiven: boolean;
  growth: GrowthThreshold;
  taint: string | null;
  /** With a taint report: how many call paths found their function in it. */
  taintMatch: TaintMatch | null;
  /** Units of the metrics where known: `time` is ms in taintlens measure's JSON Lines. */
  units: Record<string, string>;
  /** Problems of the experiment as a whole, each said once. */
  warnings: DesignWarning[];
  /** Per metric, with the 'auto' growth threshold: the growth of the main work per parameter. */
  mainWorkGrowth: Record<string, Record<string, Growth>>;
  /** Per metric: the noise shape estimated from all its call paths' repetitions, and the fit used. */
  noise: MetricNoise[];
  models: CallpathModel[];
  /** Library call paths folded into their program callers before modelling. */
  foldedLibraryCallpaths: number;
}

export type AlternativeBasis = 'measurements' | 'taint prior';

export interface TaintMatch {
  /** Call paths other than `<root>` whose function the report has. */
  matched: number;
  callpaths: number;
  /** The largest share of a metric, at the largest measured point, that the matched call paths carry. */
  share: number;
}

/**
 * A report whose functions carry less than this share of the measured work is taken to be of
 * another module (shared runtime functions such as allocators match by name across modules).
 */
export const MIN_TAINT_SHARE = 0.5;

export interface SeriesModel {
  /** The search's fit; absent for an exact closed form. */
  fit?: Fit;
  terms: Term[];
  /** The closed form reproducing every point of exact data. */
  exact?: ExactModel;
  /** Every repetition identical, but no form of the space reproduces the points. */
  inexact: boolean;
  /** With `inexact`: the parameters along whose lines no function set of the space, with a value to spare, fits. */
  unexplained?: string[];
  /** Relative variance of the aggregated values from the repetitions (NaN without repetitions). */
  noiseVar: number;
  alternative?: { terms: Term[]; basis: AlternativeBasis };
  contention: string[];
  interaction: boolean;
  cv: number;
  cvMax: number;
  smape: number;
  loo: number;
  repetitions: number;
  /** Distinct values of each parameter among the points. */
  distinct: number[];
  /** The aggregated value at each point. */
  aggregated: Float64Array;
}

/** Everything one modeling session reuses between series: coordinate-dependent bases. */
export class Modeler {
  private readonly cache: PointSetCache;
  readonly shapes: readonly Shape[];
  private readonly scratch: number[] = [];

  constructor(
    readonly aggregateBy: Aggregate = 'median',
    shapes: 'full' | 'extrap' = 'full',
    private readonly searchOverrides: Partial<SearchOptions> = {},
  ) {
    this.shapes = shapes === 'extrap' ? EXTRAP_SHAPES : FULL_SHAPES;
    this.cache = new PointSetCache(this.shapes);
  }

  /**
   * Models one series, optionally restricted to the allowed term masks of a prior; with `minimax`,
   * shapes are chosen by how tightly they cover the repetitions (for bounded noise).
   */
  /**
   * The whole program's model as the sum of its parts' (wholeForm): exact where every part's form is
   * and the sum reproduces every repetition of every point; else the summed fit, measured by its SMAPE.
   */
  sumOfParts(series: Series, whole: WholeForm): SeriesModel {
    const points = series.points.filter((point) => point.values.length > 0);
    const at = (coords: readonly number[]) => Object.fromEntries(series.params.map((p, l) => [p, coords[l]!]));
    const predicted = points.map((point) => evaluateModel(whole.terms, at(point.coords)));
    const exactData = isExactData(points);
    const reproduces =
      exactData && points.every((point, i) => point.values.every((v) => Math.abs(predicted[i]! - v) < COUNT_TOLERANCE));
    const ps = this.cache.get(
      points.map((point) => point.coords),
      series.params.length,
    );
    const spread = spreadOf(points, this.aggregateBy);
    const aggregated = Float64Array.from(points, (point) => aggregate(point.values, this.aggregateBy, this.scratch));
    const exact = whole.exact && reproduces ? { ...whole.exact, leading: leadingTerms(whole.terms) } : undefined;
    return {
      terms: whole.terms,
      ...(exact ? { exact } : {}),
      inexact: exactData && !exact,
      ...(exactData && !exact ? { unexplained: whole.unexplained } : {}),
      noiseVar: spread.noiseVar,
      contention: [],
      interaction: false,
      cv: spread.cv,
      cvMax: spread.cvMax,
      smape: exact ? 0 : smape(aggregated, predicted),
      loo: exact ? 0 : NaN,
      repetitions: spread.repetitions,
      distinct: ps.distinct,
      aggregated,
    };
  }

  model(
    series: Series,
    allowed?: readonly number[],
    minimax = false,
    space?: ExactSpace,
    depths?: readonly number[],
  ): SeriesModel {
    const m = series.params.length;
    const points = series.points.filter((point) => point.values.length > 0);
    const ps: PointSet = this.cache.get(
      points.map((point) => point.coords),
      m,
    );
    const y = new Float64Array(points.length);
    for (let i = 0; i < points.length; i++) y[i] = aggregate(points[i]!.values, this.aggregateBy, this.scratch);
    const spread = spreadOf(points, this.aggregateBy);
    const exactData = isExactData(points);
    let unexplained: string[] | undefined;
    if (exactData) {
      // On a full grid, a parameter whose lines no function set of the space explains rules out
      // every form at a fraction of the search's cost (atoi's digit loop, printf's formatting).
      const fullGrid = points.length > 1 && points.length === ps.distinct.reduce((a, b) => a * b, 1);
      if (fullGrid) unexplained = unexplainedAlong(ps.coords, y, ps.usable, space).map((l) => series.params[l]!);
      const exact =
        unexplained && unexplained.length > 0 ? undefined : exactModel(ps.coords, y, series.params, ps.usable, space);
      if (!exact && points.length > 1 && !unexplained)
        unexplained = unexplainedAlong(ps.coords, y, ps.usable, space).map((l) => series.params[l]!);
      if (exact) unexplained = undefined;
      if (exact) {
        return {
          terms: exact.terms,
          exact,
          inexact: false,
          noiseVar: 0,
          contention: [],
          interaction: false,
          cv: spread.cv,
          cvMax: spread.cvMax,
          smape: 0,
          loo: 0,
          repetitions: spread.repetitions,
          distinct: ps.distinct,
          aggregated: y,
        };
      }
    }
    const options = { ...defaultSearchOptions(m), ...this.searchOverrides };
    const bounds = minimax && spread.repetitions > 1 ? repetitionBounds(points) : undefined;
    const result = searchModel(
      ps,
      y,
      spread.noiseVar,
      allowed ? { allowed, ...(depths ? { depths } : {}) } : undefined,
      options,
      bounds,
    );
    // Measurements that contradict the prior significantly win: the prior's model would misfit and
    // mispredict, and the flag says why the model depends on what the code cannot.
    const contradicted = result.contention.length > 0 || result.interaction || (result.beyondNest?.length ?? 0) > 0;
    const chosen = contradicted && result.unrestricted ? result.unrestricted : result.fit;
    const other = contradicted ? result.fit : result.unrestricted;
    const terms = termsOf(chosen, series.params);
    const predicted = new Float64Array(points.length);
    const at: Record<string, number> = {};
    for (let i = 0; i < points.length; i++) {
      for (let l = 0; l < m; l++) at[series.params[l]!] = points[i]!.coords[l]!;
      predicted[i] = evaluateModel(terms, at);
    }
    const alternative =
      other && other !== chosen
        ? {
            terms: termsOf(other, series.params),
            basis: (contradicted ? 'taint prior' : 'measurements') as AlternativeBasis,
          }
        : undefined;
    // A model that reproduces every count (to half a count) is no inexact fit, whatever its shape.
    const counts = y.every((value) => Number.isSafeInteger(value));
    const scale = y.reduce((a, b) => Math.max(a, Math.abs(b)), 0);
    const tolerance = counts ? COUNT_TOLERANCE : EXACT_TOLERANCE * scale;
    const fitsEvery = exactData && y.every((value, i) => Math.abs(predicted[i]! - value) < tolerance);
    return {
      fit: chosen,
      terms,
      inexact: exactData && points.length > 1 && !fitsEvery,
      ...(unexplained ? { unexplained } : {}),
      noiseVar: spread.noiseVar,
      alternative,
      contention: result.contention.map((l) => series.params[l]!),
      interaction: result.interaction,
      cv: spread.cv,
      cvMax: spread.cvMax,
      smape: smape(y, predicted),
      loo: chosen.masks.length + 2 <= points.length ? leaveOneOutError(ps, y, chosen) : NaN,
      repetitions: spread.repetitions,
      distinct: ps.distinct,
      aggregated: y,
    };
  }
}

/** Terms of a fit: the constant first, then products ordered by size and parameter order. */
export function termsOf(fit: Fit, params: readonly string[]): Term[] {
  const terms: Term[] = [{ coefficient: fit.coefficients[0] ?? 0, factors: [] }];
  const order = fit.masks
    .map((mask, t) => ({ mask, t }))
    .sort((a, b) => popcount(b.mask) - popcount(a.mask) || a.mask - b.mask);
  for (const { mask, t } of order) {
    const factors = [];
    for (let l = 0; l < params.length; l++) {
      if (!(mask & (1 << l))) continue;
      const factor = fit.own[t] ?? fit.factors[l]!;
      factors.push({ param: params[l]!, exponent: factor.exponent, log: factor.log });
    }
    terms.push({ coefficient: fit.coefficients[t + 1]!, factors });
  }
  return terms;
}

/** The parameters a model depends on, in `params` order. */
export function dependenciesOf(terms: readonly Term[], params: readonly string[]): string[] {
  const used = new Set(terms.flatMap((term) => term.factors.map((factor) => factor.param)));
  return params.filter((p) => used.has(p));
}

/** Call paths that name no function of the program: the whole run and what ran outside every region. */
const NOT_A_FUNCTION: ReadonlySet<string> = new Set([ROOT_CALLPATH, OUTSIDE_REGIONS]);

function seriesKey(series: Series): string {
  return `${series.metric}\u0000${series.callpath}`;
}

/** Models every call path (of the chosen metric), checks them against the prior, ranks them. */
export function modelExperiment(measured: Experiment, options: ModelingOptions): ModelsReport {
  const { experiment: foldedExperiment, folded } = options.isLibrary
    ? foldLibraryCallpaths(measured, options.isLibrary)
    : { experiment: measured, folded: 0 };
  const experiment = options.wholeProgram ? withWholeProgram(foldedExperiment) : foldedExperiment;
  const modeler = new Modeler(options.aggregate, options.shapes ?? 'full', options.search ?? {});
  const selected = experiment.series.filter(
    (series) => options.metric === undefined || series.metric === options.metric,
  );
  const params = experiment.params;
  const reference: Record<string, number> = {};
  for (const series of selected) {
    for (const point of series.points) {
      series.params.forEach((p, l) => {
        reference[p] = Math.max(reference[p] ?? -Infinity, point.coords[l]!);
      });
    }
  }
  const values = valuesPerParameter(experiment, selected);
  // A report that names none of the measured parameters is of something else: it would make every
  // function it knows constant. It is not applied, and said so once below.
  const sharedParams = options.taint ? params.filter((p) => options.taint!.parameters.includes(p)) : [];
  const taint = sharedParams.length > 0 ? options.taint : undefined;
  if (options.target) checkTarget(values, options.target);
  const target = options.target ?? reference;
  const noise: MetricNoise[] = [...new Set(selected.map((series) => series.metric))].map((metric) => {
    const estimate = estimateNoise(selected.filter((series) => series.metric === metric));
    const mode = options.fit ?? 'auto';
    return {
      metric,
      ...estimate,
      fit: mode === 'auto' ? (estimate.shape === 'bounded' ? 'minimax' : 'least-squares') : mode,
    };
  });
  const fitFor = new Map(noise.map((entry) => [entry.metric, entry.fit]));
  const models: CallpathModel[] = [];
  /** The whole run's typical time when too short to model (ms). */
  let shortRunMs: number | undefined;
  const seen = new Set<string>();
  /** Exact closed forms so far, for noisy metrics of the same call path (time shaped by counts). */
  const exactForms: { series: Series; terms: Term[] }[] = [];
  // Exact data first: a noisy metric starts from their term sets.
  // The whole program's count last: its model is the sum of its parts' (exact where theirs are).
  const summedRoot = (series: Series) =>
    options.wholeProgram === true && series.callpath === ROOT_CALLPATH && isSummedMetric(series.metric);
  const ordered = [...selected].sort(
    (a, b) =>
      Number(summedRoot(a)) - Number(summedRoot(b)) || Number(!isExactData(a.points)) - Number(!isExactData(b.points)),
  );
  /** Models found so far, per metric and call path (the parts of a whole program's model). */
  const partModels = new Map<string, SeriesModel>();
  for (const series of ordered) {
    if (seen.has(seriesKey(series))) continue;
    seen.add(seriesKey(series));
    const prior = taint ? priorFor(taint, series.callpath, series.params) : undefined;
    const allowed = prior && prior.status !== 'missing' ? prior.allowed : undefined;
    // The exact search bounds each term by the loop depths (which also say which parameters
    // multiply), not by the loop levels' parameter sets: an (x − k) bound expands into terms
    // without x (`(a − 1)·b = a·b − b`), which no level's set allows.
    const space: ExactSpace | undefined =
      prior && prior.status === 'restricted'
        ? prior.depths && prior.depths.length > 0
          ? { degrees: prior.degrees, depths: prior.depths }
          : { degrees: prior.degrees, masks: prior.allowed }
        : undefined;
    const depths = prior && prior.status === 'restricted' ? prior.degrees : undefined;
    const whole = summedRoot(series)
      ? wholeForm(series, selected, (part) => partModels.get(seriesKey(part)))
      : undefined;
    let result = whole
      ? modeler.sumOfParts(series, whole)
      : modeler.model(series, allowed, fitFor.get(series.metric) === 'minimax', space, depths);
    partModels.set(seriesKey(series), result);
    let countsShape: CountsShape | undefined;
    if (result.exact) exactForms.push({ series, terms: result.terms });
    else if (!result.inexact) {
      const shape = countsShapeFor(series, exactForms);
      if (shape) {
        countsShape = fitCountsShape(series, result, shape);
        if (countsShape.accepted)
          result = {
            ...result,
            terms: countsShape.terms,
            fit: undefined,
            alternative: undefined,
            smape: countsShape.smape,
            loo: NaN,
          };
      }
    }
    // A call path's time under a millisecond is timer resolution and tier-up: its median, no formula.
    const tooShort =
      options.timeInMs === true &&
      series.metric === TIME_METRIC &&
      typicalTime(result.aggregated) < MIN_CALLPATH_TIME_MS;
    if (tooShort) {
      result = {
        ...result,
        terms: [{ coefficient: typicalTime(result.aggregated), factors: [] }],
        fit: undefined,
        alternative: undefined,
      };
      countsShape = undefined;
    }
    const dependsOn = dependenciesOf(result.terms, series.params);
    const growth = growthOf(result.terms);
    const flags: string[] = [];
    if (result.cv > UNRELIABLE_CV) flags.push('unreliable');
    flags.push(...designFlags(result.distinct, series.params));
    if (options.timeInMs && series.metric === TIME_METRIC && series.callpath === ROOT_CALLPATH) {
      const typical = typicalTime(result.aggregated);
      if (typical < MIN_MODEL_TIME_MS) {
        flags.push('short-runs');
        shortRunMs = typical;
      }
    }
    for (const l of result.fit?.refined ?? []) flags.push(`refined:${series.params[l]}`);
    if (result.inexact) flags.push('inexact', ...(result.unexplained ?? []).map((p) => `more-values:${p}`));
    if (result.exact && result.exact.margin < MIN_CHECKS) flags.push('few-checks');
    if (tooShort) flags.push('too-short');
    if (countsShape)
      flags.push(
        countsShape.accepted ? `counts-shaped:${countsShape.metric}` : `counts-disagree:${countsShape.metric}`,
      );
    if (prior && prior.status === 'restricted') flags.push(...nestFlags(result.terms, prior.degrees, series.params));
    const exact = result.exact;
    let showsAt: Record<string, number> | undefined;
    if (exact && leadingShare(exact.terms, exact.leading, reference) < LEADING_SHARE) {
      flags.push('lower-order');
      showsAt = leadingShowsAt(exact.terms, exact.leading, reference);
    }
    if (prior) {
      if (prior.status === 'missing' && !NOT_A_FUNCTION.has(series.callpath)) flags.push('taint-missing');
      // A parameter that reaches only the function's branches selects code paths of other cost.
      for (const p of result.contention) flags.push(prior.branchParams.includes(p) ? `branch:${p}` : `contention:${p}`);
      if (result.interaction) flags.push('interaction');
      for (const p of prior.ownParams) if (!dependsOn.includes(p)) flags.push(`too-narrow:${p}`);
    }
    models.push({
      callpath: series.callpath,
      metric: series.metric,
      params: [...series.params],
      model: formatModel(result.terms),
      terms: result.terms,
      cv: result.cv,
      cvMax: result.cvMax,
      smape: result.smape,
      loo: result.loo,
      points: series.points.length,
      repetitions: result.repetitions,
      dependsOn,
      growth,
      flags,
      prediction: evaluateModel(result.terms, target),
      rank: 0,
      ...(result.alternative
        ? {
            alternative: {
              model: formatModel(result.alternative.terms),
              terms: result.alternative.terms,
              basis: result.alternative.basis,
            },
          }
        : {}),
      ...(prior ? { prior: { function: prior.function, status: prior.status, params: prior.params } } : {}),
      exact: exact !== undefined,
      ...(exact ? { leading: formatLeading(exact.leading), leadingTerms: exact.leading } : {}),
      ...(showsAt ? { leadingShowsAt: showsAt } : {}),
      ...(countsShape
        ? {
            countsShape: {
              model: formatModel(countsShape.shapeTerms),
              metric: countsShape.metric,
              accepted: countsShape.accepted,
            },
          }
        : {}),
      ...(exact || result.inexact || tooShort ? {} : aboveNoiseOf(series, result)),
    });
    options.onProgress?.(series.callpath);
  }
  const metrics = [...new Set(models.map((model) => model.metric))];
  const mainWork: Record<string, Record<string, Growth>> = {};
  for (const metric of metrics) {
    const group = models.filter((model) => model.metric === metric);
    const root = options.wholeProgram ? group.find((model) => model.callpath === ROOT_CALLPATH) : undefined;
    if (root) {
      const whole = wholeAtLeastParts(
        root.prediction,
        group.filter((model) => model !== root).map((model) => model.prediction),
      );
      if (whole.raised) {
        root.prediction = whole.prediction;
        root.flags.push('parts-sum');
      }
    }
    // The whole run is not one of its own parts: it neither sets the main work nor counts twice in the total.
    const parts = group.length > 1 ? group.filter((model) => model.callpath !== ROOT_CALLPATH) : group;
    if (options.growth.default === 'auto') mainWork[metric] = mainWorkGrowth(parts, reference, params);
    scalabilityFlags(parts, options.growth, mainWork[metric]).forEach((flags, i) => {
      const model = parts[i]!;
      // On noisy data a growth finding stands only above the noise; exact data need no such check.
      model.flags.push(
        ...(model.exact || model.flags.includes('inexact') ? flags : keepAboveNoise(flags, model.aboveNoise ?? NaN)),
      );
    });
    group.sort((a, b) => b.prediction - a.prediction || a.callpath.localeCompare(b.callpath));
    group.forEach((model, i) => (model.rank = i + 1));
  }
  models.sort((a, b) => a.metric.localeCompare(b.metric) || a.rank - b.rank);
  const warnings = designWarnings(values, options.target ?? {});
  if (shortRunMs !== undefined) warnings.push(shortRunsWarning(TIME_METRIC, shortRunMs));
  const taintMatch = options.taint ? matchTaint(models, reference) : null;
  if (
    options.taint &&
    taintMatch &&
    taintMatch.callpaths > 0 &&
    (taintMatch.matched === 0 || taintMatch.share < MIN_TAINT_SHARE)
  ) {
    // Nothing matched: one line instead of a `taint-missing` on every row. Some did: the rows say which.
    if (taintMatch.matched === 0)
      for (const model of models) model.flags = model.flags.filter((flag) => flag !== 'taint-missing');
    warnings.push(taintMismatchWarning(options.taint.source, taintMatch, sharedParams));
  }
  return {
    params,
    metrics,
    aggregate: options.aggregate,
    target,
    targetGiven: options.target !== undefined,
    growth: options.growth,
    taint: options.taint?.source ?? null,
    taintMatch,
    units: options.timeInMs && metrics.includes(TIME_METRIC) ? { [TIME_METRIC]: 'ms' } : {},
    warnings,
    mainWorkGrowth: mainWork,
    noise,
    models,
    foldedLibraryCallpaths: folded,
  };
}

/** A noisy series' `aboveNoise`: the model's growth beyond a constant, in noise variances. */
function aboveNoiseOf(series: Series, result: SeriesModel): { aboveNoise?: number } {
  const points = series.points.filter((point) => point.values.length > 0);
  const predicted = points.map((point) =>
    evaluateModel(result.terms, Object.fromEntries(series.params.map((p, l) => [p, point.coords[l]!]))),
  );
  const above = growthAboveNoise(result.aggregated, predicted, result.noiseVar);
  return Number.isFinite(above) ? { aboveNoise: Number(above.toPrecision(3)) } : {};
}

/**
 * How many call paths (the measured program's own, not `<root>`) found their function in the taint
 * report, and the largest share of a metric (at the largest measured point) that those carry.
 */
function matchTaint(models: readonly CallpathModel[], reference: Readonly<Record<string, number>>): TaintMatch {
  const own = models.filter((model) => !NOT_A_FUNCTION.has(model.callpath));
  const isMatched = (model: CallpathModel) => model.prior !== undefined && model.prior.status !== 'missing';
  const callpaths = new Set(own.map((model) => model.callpath));
  const matched = new Set(own.filter(isMatched).map((model) => model.callpath));
  let share = 0;
  for (const metric of new Set(own.map((model) => model.metric))) {
    let total = 0;
    let covered = 0;
    for (const model of own.filter((m) => m.metric === metric)) {
      const value = Math.max(0, evaluateModel(model.terms, reference));
      total += value;
      if (isMatched(model)) covered += value;
    }
    if (total > 0) share = Math.max(share, covered / total);
  }
  return { matched: matched.size, callpaths: callpaths.size, share };
}
