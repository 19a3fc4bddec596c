// Resolves a measurement mode to its region functions for one module: runs the profiling run
// (default) or the taint analysis (selective) it needs at the campaign's base point.
import { siteTableOf } from '../../instrument/pipeline.js';
import { profileLoops } from '../profile/profile-run.js';
import { analyzeTaint, type ParamSpec } from '../taint/analyze.js';
import { parseTaintReport } from '../io/taint.js';
import { parseJson } from '../io/json.js';
import { readInputText } from '../util/read-file.js';
import { parseDependency } from '../model/prior.js';
import type { WasiConfig } from '../runtime/protocol.js';
import type { LoopProfiler } from '../profile/profile-memo.js';
import {
  selectDefault,
  selectFiltered,
  selectFull,
  selectSelective,
  type MeasureMode,
  type RegionSelection,
} from './modes.js';
import { treeFullRefusal } from '../profile/tree-full.js';
import { fileError } from '../util/errors.js';

/** What measurement needs of a taint report: per function its dependency and a call path to it. */
export interface TaintFacts {
  parameters: string[];
  functions: Array<{
    name: string;
    dependency: string | null;
    monomials: string[][] | null;
    callpath: string[] | null;
  }>;
}

export interface SelectionInput {
  file: string;
  bytes: Uint8Array;
  mode: MeasureMode;
  invoke: string | null;
  /** Arguments of the base point, for the profiling or taint run. */
  args: string[];
  argv: string[];
  timeoutMs: number;
  /** How to mark parameters for selective mode, or an existing taint report (with its facts, when already read). */
  taint?: { params: ParamSpec[] } | { report: string; facts?: TaintFacts };
  /** The loop profiler for the default mode's run (analyze shares one across its steps). */
  profiler?: LoopProfiler;
  /** A WASI command's folders, environment and standard input. */
  wasi?: WasiConfig;
  /** Calling-context tree size of the profiling and taint runs. */
  contextBytes?: number;
}

export async function selectRegions(input: SelectionInput): Promise<RegionSelection> {
  if (input.mode === 'none')
    return { mode: 'none', functions: null, rule: 'no instrumentation: the whole run is timed', dropped: [] };
  const all = functionNames(input.bytes, input.file);
  if (input.mode === 'full') return selectFull(all);
  if (input.mode.startsWith('filter:')) return selectFiltered(input.mode.slice('filter:'.length), all);
  if (input.mode === 'default') {
    const profile = await (input.profiler ?? profileLoops)(
      input.file,
      input.bytes,
      {
        invoke: input.invoke,
        args: input.args,
        argv: input.argv,
        repeat: 1,
        timeoutMs: input.timeoutMs,
        ...wasiOf(input),
      },
      input.contextBytes !== undefined ? { contextBytes: input.contextBytes } : {},
    );
    if (profile.contextsLost)
      throw fileError(
        input.file,
        `profiling run: ${treeFullRefusal(profile.contextsLost, profile.contextTreeBytes ?? 0)}`,
      );
    return selectDefault(profile, all);
  }
  return selectSelective(await taintReportFor(input), all);
}

export async function taintReportFor(input: Omit<SelectionInput, 'mode'>): Promise<TaintFacts> {
  let json: {
    parameters: string[];
    functions: Array<{ name: string; dependency: string | null; callpath?: string[] | null }>;
  };
  if (input.taint && 'report' in input.taint) {
    if (input.taint.facts) return input.taint.facts;
    const file = input.taint.report;
    const raw = parseJson(readInputText(file), file);
    parseTaintReport(raw, file);
    json = raw as typeof json;
  } else {
    json = (
      await analyzeTaint({
        file: input.file,
        bytes: input.bytes,
        invoke: input.invoke,
        args: input.args,
        argv: input.argv,
        timeoutMs: input.timeoutMs,
        params: input.taint?.params ?? [],
        ...wasiOf(input),
        ...(input.contextBytes !== undefined ? { instrument: { contextBytes: input.contextBytes } } : {}),
      })
    ).report;
  }
  return taintFactsOf(json);
}

/** What measurement needs of a taint report (`taintlens taint --json`, or the analysis' own). */
export function taintFactsOf(json: {
  parameters: string[];
  functions: Array<{ name: string; dependency: string | null; callpath?: string[] | null }>;
}): TaintFacts {
  return {
    parameters: json.parameters,
    functions: json.functions.map((f) => ({
      name: f.name,
      dependency: f.dependency,
      callpath: f.callpath ?? null,
      monomials: f.dependency === null ? null : parseDependency(f.dependency, json.parameters),
    })),
  };
}

/** `{ wasi }` when the experiment gives a WASI command folders, environment or input; else nothing. */
export function wasiOf(input: { wasi?: WasiConfig }): { wasi?: WasiConfig } {
  return input.wasi ? { wasi: input.wasi } : {};
}

/** The module's function names by its bytes: every mode of an experiment or overhead comparison parses the module once. */
const namesByModule = new WeakMap<Uint8Array, string[]>();

function functionNames(bytes: Uint8Array, file: string): string[] {
  let names = namesByModule.get(bytes);
  if (!names) {
    names = siteTableOf(bytes, file).functions.map((f) => f.name);
    namesByModule.set(bytes, names);
  }
  return names;
}
