// The experiment spec (`taintlens experiment SPEC`): a JSON file naming the module, the export and
// its arguments (or a WASI command's argv) with {placeholders}, the parameters and their values,
// repetitions, metrics, the measurement mode and how to mark parameters for the taint analysis.
// Every problem is one line naming the spec file and the field.
import { dirname, resolve } from 'node:path';
import { readInputText } from '../util/read-file.js';
import { fileError } from '../util/errors.js';
import { parseJson } from '../io/json.js';
import { isMeasureMode, MEASURE_MODES, type MeasureMode } from './modes.js';
import { METRICS, type Metric } from './campaign.js';
import type { VariedParameter } from './grid.js';
import type { ExperimentDefinition } from './experiment.js';
import type { ParamSpec } from '../taint/analyze.js';
import { MAX_RANKS } from '../runtime/spmd/shared-state.js';

/** The engine's definition, with the module named (resolved against the spec's folder) instead of read. */
export interface ExperimentSpec extends Omit<ExperimentDefinition, 'file' | 'bytes'> {
  /** The spec file. */
  file: string;
  module: string;
}

const FIELDS = ['module', 'invoke', 'args', 'argv', 'parameters', 'repetitions', 'metrics', 'mode', 'taint', 'trace', 'design', 'timeout', 'ranks'];
const PLACEHOLDER = /\{([^{}]*)\}/;

export function readSpec(file: string): ExperimentSpec {
  return parseSpec(parseJson(readInputText(file), file), file);
}

export function parseSpec(json: unknown, file: string): ExperimentSpec {
  const fail = (field: string, problem: string) => fileError(file, `field '${field}': ${problem}`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw fileError(file, 'an experiment spec is a JSON object');
  const spec = json as Record<string, unknown>;
  for (const key of Object.keys(spec)) {
    if (!FIELDS.includes(key)) throw fail(key, `unknown field (fields: ${FIELDS.join(', ')})`);
  }
  if (typeof spec.module !== 'string' || spec.module === '') throw fail('module', 'required: the path of the .wasm module (relative to the spec)');
  if (spec.invoke !== undefined && spec.invoke !== null && typeof spec.invoke !== 'string') throw fail('invoke', 'must be the name of an export');
  if (spec.args !== undefined && spec.argv !== undefined) throw fail('argv', "give 'args' (export arguments) or 'argv' (a WASI command line), not both");
  const list = (field: 'args' | 'argv'): string[] => {
    const value = spec[field];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw fail(field, 'must be a list of numbers, strings or "{name}" placeholders');
    return value.map((v, i) => {
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (typeof v === 'string') return v;
      throw fail(`${field}[${i}]`, `must be a number, a string or a "{name}" placeholder, got ${JSON.stringify(v)}`);
    });
  };
  const args = list('args');
  const argv = list('argv');
  if (typeof spec.parameters !== 'object' || spec.parameters === null || Array.isArray(spec.parameters)) {
    throw fail('parameters', 'required: an object mapping each parameter name to its list of values');
  }
  const values = new Map<string, number[]>();
  for (const [name, raw] of Object.entries(spec.parameters as Record<string, unknown>)) {
    if (!/^[A-Za-z_][\w.]*$/.test(name)) throw fail(`parameters.${name}`, 'a parameter name is a letter or _ followed by letters, digits, _ or .');
    if (!Array.isArray(raw) || raw.length === 0) throw fail(`parameters.${name}`, 'must be a non-empty list of numbers');
    raw.forEach((v, i) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw fail(`parameters.${name}[${i}]`, `must be a number, got ${JSON.stringify(v)}`);
    });
    if (new Set(raw).size !== raw.length) throw fail(`parameters.${name}`, 'values repeat');
    values.set(name, raw as number[]);
  }
  if (values.size === 0) throw fail('parameters', 'name at least one parameter');
  const parameters: VariedParameter[] = [];
  for (const [kind, field, items] of [['arg', 'args', args], ['argv', 'argv', argv]] as const) {
    items.forEach((item, index) => {
      const match = PLACEHOLDER.exec(item);
      if (!match) return;
      const name = match[1]!;
      if (item !== `{${name}}`) throw fail(`${field}[${index}]`, `a placeholder must be the whole argument, got '${item}'`);
      const parameterValues = values.get(name);
      if (!parameterValues) throw fail(`${field}[${index}]`, `placeholder {${name}} names no parameter (parameters: ${[...values.keys()].join(', ')})`);
      if (parameters.some((p) => p.name === name)) throw fail(`${field}[${index}]`, `parameter ${name} is placed twice`);
      parameters.push({ name, target: { kind, index }, values: parameterValues });
    });
  }
  const ranks = parseRanks(spec.ranks, values, parameters, fail);
  for (const name of values.keys()) {
    if (!parameters.some((p) => p.name === name)) throw fail(`parameters.${name}`, `no placeholder {${name}} in ${argv.length ? 'argv' : 'args'}: the parameter would not reach the program`);
  }
  // Parameters in the order they were declared.
  const order = [...values.keys()];
  parameters.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const repetitions = spec.repetitions ?? 5;
  if (typeof repetitions !== 'number' || !Number.isInteger(repetitions) || repetitions < 1) throw fail('repetitions', 'must be a whole number ≥ 1');
  const metrics = spec.metrics ?? ['time', 'instructions'];
  if (!Array.isArray(metrics) || metrics.length === 0) throw fail('metrics', `must be a non-empty list of ${METRICS.join(', ')}`);
  metrics.forEach((m, i) => {
    if (!METRICS.includes(m as Metric)) throw fail(`metrics[${i}]`, `unknown metric ${JSON.stringify(m)} (${METRICS.join(', ')})`);
  });
  const mode = spec.mode ?? 'selective';
  if (typeof mode !== 'string' || !isMeasureMode(mode)) throw fail('mode', `unknown mode ${JSON.stringify(mode)} (${MEASURE_MODES.join(', ')})`);
  const here = dirname(resolve(file));
  const resolvedMode = mode.startsWith('filter:') ? (`filter:${resolve(here, mode.slice(7))}` as MeasureMode) : mode;
  const trace = spec.trace ?? 0;
  if (typeof trace !== 'number' || !Number.isInteger(trace) || trace < 0 || trace > 1_000_000) throw fail('trace', 'must be a whole number of visits, 0 to 1000000');
  const design = spec.design ?? 'grid';
  if (design !== 'grid' && design !== 'auto') throw fail('design', `must be "grid" or "auto", got ${JSON.stringify(design)}`);
  const timeout = spec.timeout ?? 60;
  if (typeof timeout !== 'number' || !(timeout > 0)) throw fail('timeout', 'must be a positive number of seconds');
  return {
    file, module: resolve(here, spec.module), invoke: (spec.invoke as string | null | undefined) ?? null, args, argv, parameters,
    repetitions, metrics: [...new Set(metrics as Metric[])], mode: resolvedMode, trace, design, timeoutMs: timeout * 1000,
    ...(spec.taint !== undefined ? { taint: parseTaint(spec.taint, here, fail) } : {}),
    ...(ranks !== undefined ? { ranks } : {}),
  };
}

/** `"ranks": 4` (fixed SPMD ranks) or `"ranks": "{p}"` (the parameter p is the rank count); adds the latter to `parameters`. */
function parseRanks(value: unknown, values: Map<string, number[]>, parameters: VariedParameter[], fail: (field: string, problem: string) => Error): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1 || value > MAX_RANKS) throw fail('ranks', `must be a whole number from 1 to ${MAX_RANKS} or a "{name}" placeholder`);
    return value;
  }
  const match = typeof value === 'string' ? /^\{([^{}]+)\}$/.exec(value) : null;
  if (!match) throw fail('ranks', `must be a whole number from 1 to ${MAX_RANKS} or a "{name}" placeholder, got ${JSON.stringify(value)}`);
  const name = match[1]!;
  const counts = values.get(name);
  if (!counts) throw fail('ranks', `placeholder {${name}} names no parameter (parameters: ${[...values.keys()].join(', ')})`);
  if (parameters.some((p) => p.name === name)) throw fail('ranks', `parameter ${name} is placed twice`);
  const bad = counts.find((c) => !Number.isInteger(c) || c < 1 || c > MAX_RANKS);
  if (bad !== undefined) throw fail(`parameters.${name}`, `rank counts must be whole numbers from 1 to ${MAX_RANKS}, got ${bad}`);
  parameters.push({ name, target: { kind: 'ranks', index: 0 }, values: counts });
  return undefined;
}

function parseTaint(value: unknown, here: string, fail: (field: string, problem: string) => Error): { params: ParamSpec[] } | { report: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail('taint', 'must be {"params": {NAME: "argK" | "global:EXPORT"}} or {"report": "taint.json"}');
  const taint = value as Record<string, unknown>;
  for (const key of Object.keys(taint)) if (key !== 'params' && key !== 'report') throw fail(`taint.${key}`, 'unknown field (params, report)');
  if (typeof taint.report === 'string') {
    if (taint.params !== undefined) throw fail('taint', "give 'params' or 'report', not both");
    return { report: resolve(here, taint.report) };
  }
  if (taint.report !== undefined) throw fail('taint.report', 'must be the path of a taint report (taintlens taint --json)');
  const params = taint.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw fail('taint.params', 'must map parameter names to "argK" or "global:EXPORT"');
  return {
    params: Object.entries(params as Record<string, unknown>).map(([name, where]) => {
      const match = typeof where === 'string' ? /^(?:arg(\d+)|global:(.+))$/.exec(where) : null;
      if (!match) throw fail(`taint.params.${name}`, `must be "argK" (K from 0) or "global:EXPORT", got ${JSON.stringify(where)}`);
      return match[1] !== undefined ? { name, arg: Number(match[1]) } : { name, global: match[2]! };
    }),
  };
}
