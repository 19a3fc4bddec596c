// Step 1 of `taintlens analyze`: a tainted run at the base point (every placeholder labelled with
// its name) and a loop-profiler run beside it. Gives the relevant functions, the parameter
// coverage, the prunable parameters, the loop tree with its dependencies, and the proposal of
// model parameters. The taint report is kept as DIR/taint.json: the experiment's selective mode
// and the models' prior read it.
import { join } from 'node:path';
import { analyzeTaint, type ParamSpec } from '../taint/analyze.js';
import { loadLibrary, shippedLibraryDir } from '../taint/library.js';
import { profileLoops } from '../profile/profile-run.js';
import { treeOrder } from '../report/loops-report.js';
import { writeJsonAtomic } from '../util/atomic-write.js';
import { taintFactsOf, type TaintFacts } from '../experiment/select.js';
import type { LoopProfiler } from '../profile/profile-memo.js';
import { chooseParameters, workPerParameter, type ParameterWork } from './propose.js';
import type { AnalysisConfig } from './config.js';
import type { ShadowGranularity } from '../../instrument/passes/shadow-placement.js';

/** Loops of the tree shown: those with at least this share of the run's instructions. */
const LOOP_TREE_MIN_SHARE = 0.001;
const LOOP_TREE_MAX = 200;

import type { RunHost } from '../experiment/experiment.js';
import { treeFullRefusal } from '../profile/tree-full.js';
import { fileError } from '../util/errors.js';

export interface RelevantFunction {
  name: string;
  dependency: string;
  params: string[];
  callpath: string[] | null;
  source: string | null;
}

export interface CoverageRow extends ParameterWork {
  /** Loops, functions and branches whose conditions the parameter reaches (taint report). */
  loopIds: string[];
  functions: string[];
  branches: string[];
}

export interface LoopTreeNode {
  id: string;
  loop: string;
  function: string;
  callpath: string;
  parent: string | null;
  depth: number;
  iterations: number;
  instructions: number;
  share: number;
  params: string[];
  source: string | null;
}

export interface TaintStep {
  reportFile: string;
  /** What the experiment and the overhead comparison need of the report, so they do not read it again. */
  facts: TaintFacts;
  parameters: string[];
  relevantFunctions: RelevantFunction[];
  coverage: CoverageRow[];
  prunable: string[];
  loopTree: LoopTreeNode[];
  totalInstructions: number;
  warnings: string[];
  /** The model parameters, most work first. */
  chosen: string[];
}

/** How the taint step runs: the shared loop profiler, the taint run's shadow memory, the program's host. */
export interface TaintStepOptions {
  profiler?: LoopProfiler;
  shadow?: ShadowGranularity;
  host?: RunHost;
}

export async function runTaintStep(
  file: string,
  bytes: Uint8Array,
  config: AnalysisConfig,
  dir: string,
  options: TaintStepOptions = {},
): Promise<TaintStep> {
  const { profiler = profileLoops, shadow, host = {} } = options;
  const params: ParamSpec[] = config.candidates.map((c) =>
    c.target.kind === 'arg' ? { name: c.name, arg: c.target.index } : { name: c.name, argv: c.target.index + 1 },
  );
  const run = {
    file,
    bytes,
    invoke: config.invoke,
    args: config.args,
    argv: config.argv,
    timeoutMs: config.timeoutMs,
    ...(host.wasi ? { wasi: host.wasi } : {}),
  };
  const instrument = host.contextBytes !== undefined ? { contextBytes: host.contextBytes } : {};
  const { report } = await analyzeTaint({
    ...run,
    params,
    library: loadLibrary(join(shippedLibraryDir(), 'wasi.json')),
    instrument,
    coverage: config.taintCoverage,
    ...(shadow ? { granularity: shadow } : {}),
  });
  const reportFile = join(dir, 'taint.json');
  writeJsonAtomic(reportFile, report);
  const profile = await profiler(file, bytes, { ...run, repeat: 1 }, instrument);
  // The parameters are chosen by their share of the counted work: truncated counts would mislead.
  if (profile.contextsLost)
    throw fileError(file, `profiling run: ${treeFullRefusal(profile.contextsLost, profile.contextTreeBytes ?? 0)}`);
  const loopParams = new Map(report.loops.map((loop) => [loop.id, loop.params]));
  const candidates = config.candidates.map((c) => c.name);
  const work = workPerParameter(candidates, loopParams, profile.loops, profile.totalInstructions);
  const named = config.parameters ? [...config.parameters.keys()] : null;
  const coverage = chooseParameters(work, named, config.maxParameters).map((row): CoverageRow => {
    const reached = report.coverage[row.name];
    return {
      ...row,
      loopIds: reached?.loops ?? [],
      functions: reached?.functions ?? [],
      branches: reached?.branches ?? [],
    };
  });
  const total = profile.totalInstructions;
  // A loop's inclusive count never exceeds its parent's: filtering after ordering keeps whole subtrees.
  const loopTree = treeOrder(profile.loops)
    .filter((entry) => entry.inclusiveInstructions >= total * LOOP_TREE_MIN_SHARE)
    .slice(0, LOOP_TREE_MAX)
    .map((entry): LoopTreeNode => ({
      id: entry.id,
      loop: entry.loop,
      function: entry.function,
      callpath: entry.callpath,
      parent: entry.parent,
      depth: entry.depth,
      iterations: entry.iterations,
      instructions: entry.inclusiveInstructions,
      share: total > 0 ? entry.inclusiveInstructions / total : 0,
      params: loopParams.get(entry.loop) ?? [],
      source: entry.source ?? null,
    }));
  return {
    reportFile,
    facts: taintFactsOf(report),
    parameters: report.parameters,
    relevantFunctions: report.functions
      .filter((f) => f.dependency !== null && f.pruned === null && f.params.length > 0)
      .map((f) => ({
        name: f.name,
        dependency: f.dependency!,
        params: f.params,
        callpath: f.callpath,
        source: f.source ?? null,
      })),
    coverage,
    prunable: report.prunable,
    loopTree,
    totalInstructions: total,
    warnings: report.warnings,
    chosen: named ?? coverage.filter((row) => row.chosen).map((row) => row.name),
  };
}
