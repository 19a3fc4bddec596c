// The taint analysis end to end: validate `--param` specs against the module, instrument with the
// taint pass, run under the host plugin, decode the sink table into the report.
import binaryen from 'binaryen';
import { type InstrumentedSites, type InstrumentOptions } from '../../instrument/pipeline.js';
import { instrumentIsolated } from '../runtime/isolated-instrument.js';
import type { TaintLayout } from '../../instrument/passes/taint.js';
import { readModule } from '../../instrument/module-io.js';
import { exportedFunctions } from '../../instrument/exports.js';
import { readModuleInterface } from '../../instrument/module-interface.js';
import { checkCommandArgs, runModule, type RunOptions, type RunOutcome } from '../runtime/run.js';
import type { HostPluginSpec } from '../runtime/protocol.js';
import { fileError, UserError } from '../util/errors.js';
import { median } from '../util/stats.js';
import { decodeTaint, type TaintReport } from './report.js';
import { addTaintSources } from './sources.js';
import { guestStreams } from '../runtime/guest-output.js';
import { TREE_FILLED, treeFullWarning } from '../profile/tree-full.js';
import type { Library } from './library.js';
import { mergeRankReports } from './merge-ranks.js';
import { COVERAGE_ROUNDS, coverageApplies, firstRun, trippedGuards, type CoverageMode } from './coverage.js';
import { coldFunctions } from './cold-functions.js';
import type { RepetitionResult } from '../runtime/protocol.js';
import type { TaintPluginOptions, TaintPluginResult } from './plugin.js';
import type { InputLabel } from './input-labels.js';
import type { ShadowGranularity } from '../../instrument/passes/shadow-placement.js';
import {
  DEFAULT_IMPLICIT_FLOW,
  DEFAULT_POINTER_LABELS,
  type ImplicitFlow,
  type PointerLabels,
} from '../../instrument/passes/taint-layout.js';

export const MAX_LABELS = 32;
const TOO_MANY_PARAMETERS = `more than ${MAX_LABELS} parameters`;

export type ParamSpec = { name: string; arg: number } | { name: string; global: string } | InputLabel;

/** Parses `NAME=argK` (K counted from 0), `NAME=global:EXPORT`, `NAME=argvK` (C's argv[K], K ≥ 1), `NAME=env:VAR` or `NAME=file:PATH`. */
export function parseParamSpec(text: string): ParamSpec {
  const match = /^([A-Za-z_][\w.$-]*)=(?:arg(\d+)|argv(\d+)|global:(.+)|env:(.+)|file:(.+))$/.exec(text.trim());
  if (!match)
    throw new UserError(
      `--param '${text}': expected NAME=argK, NAME=global:EXPORT, NAME=argvK, NAME=env:VAR or NAME=file:PATH`,
      2,
    );
  const name = match[1]!;
  if (match[2] !== undefined) return { name, arg: Number(match[2]) };
  if (match[3] !== undefined) {
    // As C numbers argv: argv[0] is the program's name, which nobody wants as a parameter.
    if (Number(match[3]) === 0)
      throw new UserError(
        `--param '${text}': argv0 is the program's name; the first word after -- is argv1 (C's argv[1])`,
        2,
      );
    return { name, argv: Number(match[3]) };
  }
  if (match[4] !== undefined) return { name, global: match[4] };
  if (match[5] !== undefined) return { name, env: match[5] };
  return { name, file: match[6]! };
}

const isInput = (p: ParamSpec): p is InputLabel => 'argv' in p || 'env' in p || 'file' in p;

/**
 * Byte shadow when a byte-sized source is marked (argv words, environment values, file bytes: two
 * short arguments share a 4-byte word, whose one label would mix them), word shadow otherwise.
 */
export function defaultGranularity(params: readonly ParamSpec[]): ShadowGranularity {
  return params.some(isInput) ? 'byte' : 'word';
}

export interface TaintRunOptions extends Pick<
  RunOptions,
  'file' | 'bytes' | 'invoke' | 'args' | 'argv' | 'repeat' | 'timeoutMs' | 'wasi'
> {
  params?: ParamSpec[];
  library?: Library;
  /** Layout options (memory limit, bounds checks); the program limit defaults to 4096 pages (256 MiB), as the shadow needs 4 bytes per program byte. */
  instrument?: InstrumentOptions;
  noOptimize?: boolean;
  /** Shadow memory granularity (default: byte when argv, environment or file bytes are marked, exact for their narrow labels; else word). */
  granularity?: ShadowGranularity;
  /** How far control dependence carries labels: every branch, loops only (default) or nowhere. */
  implicitFlow?: ImplicitFlow;
  /** A load's label: its bytes' labels ('data') or also its address's ('join', default, as DFSan's). */
  pointerLabels?: PointerLabels;
  /** More host plugins (e.g. one supplying an MPI-like API), loaded before the taint plugin. */
  extraPlugins?: HostPluginSpec[];
  /** SPMD ranks (src/runtime/spmd): every rank's report, merged (merge-ranks.ts). */
  ranks?: number;
  /** Instrument only the functions a first run enters (coverage.ts; default auto: modules of 1 MiB and more). */
  coverage?: CoverageMode;
  /** The covered set to start from instead of a first run's (site-table names; a guard still adds what the run enters). */
  coveredFunctions?: string[];
  /** Share of the first run's work the functions left unoptimized may do (default COLD_WORK_SHARE; 0: none). */
  coldShare?: number;
  /** Progress notes (the coverage run, re-runs), one line each. */
  log?: (line: string) => void;
}

export interface TaintAnalysis {
  report: TaintReport;
  sites: InstrumentedSites;
  layout: TaintLayout;
  instrumented: Uint8Array;
  outcome: RunOutcome;
  /** The functions the analysed run's module had instrumented (site-table names, sorted); null: every one. */
  instrumentedFunctions: string[] | null;
  /** Those of them instrumented without optimizations, as ones that ran little (cold-functions.ts). */
  coldFunctions: string[];
}

export const taintPluginUrl = new URL(import.meta.url.endsWith('.ts') ? './plugin.ts' : './plugin.js', import.meta.url)
  .href;

interface ModuleFacts {
  exports: Map<string, { params: number }>;
  globals: Set<string>;
  wasi: boolean;
}

/** Exports and imports from the module's sections; a module those cannot describe is read with Binaryen. */
function moduleFacts(bytes: Uint8Array, file: string): ModuleFacts {
  const read = readModuleInterface(bytes);
  if (read) {
    return {
      exports: new Map(read.functions.map((f) => [f.name, { params: f.params.length }])),
      globals: new Set(read.globals),
      wasi: [...read.importModules].some((m) => m.startsWith('wasi_')),
    };
  }
  const module = readModule(bytes, file);
  try {
    const exports = new Map<string, { params: number }>();
    const globals = new Set<string>();
    for (const f of exportedFunctions(module)) exports.set(f.name, { params: f.params.length });
    for (let i = 0; i < module.getNumExports(); i++) {
      const info = binaryen.getExportInfo(module.getExportByIndex(i));
      if (info.kind === binaryen.ExternalGlobal) globals.add(info.name);
    }
    let wasi = false;
    for (let i = 0; i < module.getNumFunctions(); i++) {
      if (binaryen.getFunctionInfo(module.getFunctionByIndex(i)).module?.startsWith('wasi_')) wasi = true;
    }
    return { exports, globals, wasi };
  } finally {
    module.dispose();
  }
}

/** The report's warnings that say counts or labels are missing (the others say how to read results). */
export function isLossWarning(warning: string): boolean {
  return warning.startsWith(TREE_FILLED) || warning.startsWith(TOO_MANY_PARAMETERS);
}

export async function analyzeTaint(options: TaintRunOptions): Promise<TaintAnalysis> {
  const { file } = options;
  const params = options.params ?? [];
  const facts = moduleFacts(options.bytes, file);
  const invoke = options.invoke ?? (facts.exports.has('_start') ? null : facts.exports.has('run') ? 'run' : null);
  checkCommandArgs(file, invoke, options.args);
  for (const p of params) {
    if (isInput(p)) {
      if (!facts.wasi)
        throw fileError(file, `--param ${p.name}: argv, environment and files are labelled for WASI programs only`);
      if ('argv' in p && invoke === null && p.argv > (options.argv ?? []).length) {
        throw fileError(
          file,
          `--param ${p.name}=argv${p.argv}: the program gets ${(options.argv ?? []).length} argument(s) after -- (argv1..argv${(options.argv ?? []).length}, as C numbers them)`,
        );
      }
    } else if ('arg' in p) {
      if (invoke === null)
        throw fileError(
          file,
          `--param ${p.name}=arg${p.arg}: a WASI command has no export arguments (label its argv with ${p.name}=argv${p.arg + 1})`,
        );
      const target = facts.exports.get(invoke);
      if (target && p.arg >= target.params) {
        throw fileError(
          file,
          `--param ${p.name}=arg${p.arg}: ${invoke} takes ${target.params} argument(s) (arg0..arg${target.params - 1})`,
        );
      }
    } else if (!facts.globals.has(p.global)) {
      throw fileError(
        file,
        `--param ${p.name}=global:${p.global}: no exported global '${p.global}' (exported globals: ${[...facts.globals].join(', ') || 'none'})`,
      );
    }
  }
  const fixed = [...new Set(params.map((p) => p.name))];
  const semantics = {
    implicitFlow: options.implicitFlow ?? DEFAULT_IMPLICIT_FLOW,
    pointerLabels: options.pointerLabels ?? DEFAULT_POINTER_LABELS,
    shadow: options.granularity ?? defaultGranularity(params),
  };
  const instrumentOptions: InstrumentOptions = {
    ...options.instrument,
    programLimitPages: options.instrument?.programLimitPages ?? 4096,
  };
  const taintOptions = {
    library: options.library?.imports ?? {},
    names: fixed,
    noOptimize: options.noOptimize,
    granularity: semantics.shadow,
    implicitFlow: semantics.implicitFlow,
    pointerLabels: semantics.pointerLabels,
  };
  const run = {
    file,
    invoke,
    args: options.args,
    argv: options.argv,
    timeoutMs: options.timeoutMs,
    wasi: options.wasi,
    ...(options.ranks !== undefined ? { ranks: options.ranks } : {}),
  };
  const log = options.log ?? (() => {});
  /** Instruments `functions` (all when undefined) and runs the module under the taint plugin. */
  const taintRun = async (functions: string[] | undefined) => {
    const instrumented = await instrumentIsolated(options.bytes, file, ['taint'], {
      ...instrumentOptions,
      taint: { ...taintOptions, ...(functions ? { functions } : {}), ...(cold.length > 0 ? { cold } : {}) },
    });
    const layout = instrumented.sites.passes.taint as TaintLayout;
    const pluginOptions: TaintPluginOptions = {
      shadow: layout.shadow,
      names: layout.names,
      args: params.flatMap((p) => ('arg' in p ? [{ name: p.name, global: layout.argGlobals[p.arg]! }] : [])),
      globals: params.flatMap((p) =>
        'global' in p ? [{ name: p.name, shadow: layout.shadowGlobals[p.global]! }] : [],
      ),
      inputs: params.filter(isInput),
      maxLabels: MAX_LABELS,
    };
    const outcome = await runModule({
      ...run,
      bytes: instrumented.bytes,
      repeat: options.repeat ?? 1,
      regions: [
        { name: 'taint', base: layout.sinks.base, bytes: usedSinkBytes(layout) },
        {
          name: 'contexts',
          base: layout.contexts.base,
          bytes: layout.contexts.bytes,
          endGlobal: layout.contexts.exports.next,
        },
      ],
      globals: [layout.contexts.exports.next, layout.contexts.exports.overflow],
      plugins: [...(options.extraPlugins ?? []), { url: taintPluginUrl, options: pluginOptions }],
      programBase: instrumented.sites.layout?.programBase ?? 0,
    });
    return { instrumented, layout, outcome };
  };
  const first =
    !options.coveredFunctions && coverageApplies(options.coverage ?? 'auto', options.bytes.length)
      ? await firstRun({ ...run, bytes: options.bytes, plugins: options.extraPlugins ?? [] }, instrumentOptions)
      : null;
  let covered = options.coveredFunctions ? [...new Set(options.coveredFunctions)].sort() : first?.entered;
  // Functions that ran little get the pass without its optimizations (cold-functions.ts); a
  // function found by a tripped guard later is not among them.
  const cold = first && !options.noOptimize ? coldFunctions(first.work, first.instructions, options.coldShare) : [];
  if (first)
    log(
      `taint: instrumenting the ${first.entered.length} function(s) a first run entered${cold.length > 0 ? ` (${cold.length} of them, which ran little, unoptimized)` : ''}`,
    );
  let attempt = await taintRun(covered);
  for (let round = 1; covered; round++) {
    const tripped = trippedGuards(attempt.layout, attempt.outcome);
    if (tripped.length === 0) break;
    const shown = tripped.slice(0, 5).join(', ') + (tripped.length > 5 ? ` and ${tripped.length - 5} more` : '');
    covered = round < COVERAGE_ROUNDS ? [...new Set([...covered, ...tripped])].sort() : undefined;
    log(
      `taint: the run entered ${tripped.length} function(s) the first run did not (${shown}); running again with ${covered ? 'them' : 'every function'} instrumented`,
    );
    attempt = await taintRun(covered);
  }
  const { instrumented, layout, outcome } = attempt;
  const timing = { medianMs: median(outcome.repetitions.map((r) => r.ms)), runs: outcome.repetitions.length };
  const decodeRank = (rep: RepetitionResult): TaintReport => {
    const plugin = rep.plugins[rep.plugins.length - 1] as TaintPluginResult;
    const warnings: string[] = [];
    const lost = Number(rep.globals[layout.contexts.exports.overflow]);
    if (lost > 0) warnings.push(treeFullWarning(lost, layout.contexts.bytes).replace(/^warning: /, ''));
    if (plugin.dropped.length > 0) warnings.push(`${TOO_MANY_PARAMETERS}: ${plugin.dropped.join(', ')} got no label`);
    const entry = layout.exports[invoke ?? '_start'] ?? null;
    return addTaintSources(
      decodeTaint({
        file,
        sites: instrumented.sites,
        layout,
        sinks: rep.regions.taint!,
        names: plugin.names,
        entry,
        declared: fixed,
        warnings,
        contexts: { raw: rep.regions.contexts!, next: Number(rep.globals[layout.contexts.exports.next]) },
        timing,
      }),
      instrumented.sites,
    );
  };
  const rep = outcome.repetitions[0]!;
  const decoded = outcome.ranks
    ? mergeRankReports(outcome.ranks.map((r) => decodeRank(r.repetitions[0]!)))
    : decodeRank(rep);
  const report: TaintReport = { ...decoded, semantics, ...guestStreams(rep) };
  return {
    report,
    sites: instrumented.sites,
    layout,
    instrumented: instrumented.bytes,
    outcome,
    instrumentedFunctions: covered ?? null,
    coldFunctions: cold,
  };
}

function usedSinkBytes(layout: TaintLayout): number {
  let end = layout.sinks.base + 64;
  for (const b of [...layout.branches, ...layout.imports, ...(layout.entered ?? []), ...(layout.guards ?? [])])
    end = Math.max(end, b.sink + 8);
  return Math.ceil((end - layout.sinks.base) / 16) * 16;
}
