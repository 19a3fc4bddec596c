// Resolves a measurement mode to its region functions for one module: runs the profiling run
// (default) or the taint analysis (selective) it needs at the campaign's base point.
import { siteTableOf } from '../../instrument/pipeline.js';
import { profileLoops } from '../profile/profile-run.js';
import { analyzeTaint, type ParamSpec } from '../taint/analyze.js';
import { parseTaintReport } from '../io/taint.js';
import { parseJson } from '../io/json.js';
import { readInputText } from '../util/read-file.js';
import { parseDependency } from '../model/prior.js';
import { selectDefault, selectFiltered, selectFull, selectSelective, type MeasureMode, type RegionSelection } from './modes.js';
import { treeFullRefusal } from '../profile/tree-full.js';
import { fileError } from '../util/errors.js';
import type { WasiConfig } from '../runtime/protocol.js';

/** What measurement needs of a taint report: per function its dependency and a call path to it. */
export interface TaintFacts {
  parameters: string[];
  functions: Array<{ name: string; dependency: string | null; monomials: string[][] | null; callpath: string[] | null }>;
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
  /** How to mark parameters for selective mode, or an existing taint report. */
  taint?: { params: ParamSpec[] } | { report: string };
  wasi?: WasiConfig;
  /** Calling-context tree size of the profiling and taint runs. */
  contextBytes?: number;
}

export async function selectRegions(input: SelectionInput): Promise<RegionSelection> {
  if (input.mode === 'none') return { mode: 'none', functions: null, rule: 'no instrumentation: the whole run is timed', dropped: [] };
  const all = siteTableOf(input.bytes, input.file).functions.map((f) => f.name);
  if (input.mode === 'full') return selectFull(all);
  if (input.mode.startsWith('filter:')) return selectFiltered(input.mode.slice('filter:'.length), all);
  if (input.mode === 'default') {
    const profile = await profileLoops(input.file, input.bytes, {
      invoke: input.invoke, args: input.args, argv: input.argv, repeat: 1, timeoutMs: input.timeoutMs, json: true, ...(input.wasi ? { wasi: input.wasi } : {}),
    }, input.contextBytes !== undefined ? { contextBytes: input.contextBytes } : {});
    if (profile.contextsLost) throw fileError(input.file, `profiling run: ${treeFullRefusal(profile.contextsLost, profile.contextTreeBytes ?? 0)}`);
    return selectDefault(profile, all);
  }
  return selectSelective(await taintReportFor(input), all);
}

export async function taintReportFor(input: Omit<SelectionInput, 'mode'>): Promise<TaintFacts> {
  let json: { parameters: string[]; functions: Array<{ name: string; dependency: string | null; callpath?: string[] | null }> };
  if (input.taint && 'report' in input.taint) {
    const file = input.taint.report;
    const raw = parseJson(readInputText(file), file);
    parseTaintReport(raw, file);
    json = raw as typeof json;
  } else {
    json = (await analyzeTaint({
      file: input.file, bytes: input.bytes, invoke: input.invoke, args: input.args, argv: input.argv,
      timeoutMs: input.timeoutMs, params: input.taint?.params ?? [], ...(input.wasi ? { wasi: input.wasi } : {}),
      ...(input.contextBytes !== undefined ? { instrument: { contextBytes: input.contextBytes } } : {}),
    })).report;
  }
  return {
    parameters: json.parameters,
    functions: json.functions.map((f) => ({
      name: f.name, dependency: f.dependency, callpath: f.callpath ?? null,
      monomials: f.dependency === null ? null : parseDependency(f.dependency, json.parameters),
    })),
  };
}
