// The analysis config (`taintlens analyze MODULE --config analysis.json`): how to call the module
// (an export's arguments or a WASI command line, with {name} placeholders), every placeholder's
// base value, optionally the model parameters and their values (else the taint step proposes
// them), the target scale, repetitions and the overhead and blame steps. Every problem is one
// line naming the config file and the field.
import { readInputText } from '../util/read-file.js';
import { fileError } from '../util/errors.js';
import { parseJson } from '../io/json.js';
import type { VariedParameter } from '../experiment/grid.js';

export interface Candidate {
  name: string;
  target: VariedParameter['target'];
  base: number;
}

export interface AnalysisConfig {
  file: string;
  invoke: string | null;
  /** Export arguments or argv with every placeholder filled in by its base value. */
  args: string[];
  argv: string[];
  /** Every placeholder: a parameter the taint run labels and the experiment may vary. */
  candidates: Candidate[];
  /** Model parameters named by the config, with their values; null: proposed by the taint step. */
  parameters: Map<string, number[]> | null;
  /** Multipliers of the base value for a proposed parameter's values. */
  scale: number[];
  /** At most this many proposed parameters. */
  maxParameters: number;
  target: Record<string, number>;
  repetitions: number;
  timeoutMs: number;
  /** Ranked call paths plotted in the HTML report. */
  plots: number;
  overhead: { rounds: number } | null;
  blame: { period: number; points: string[] } | null;
}

const FIELDS = ['invoke', 'args', 'argv', 'base', 'parameters', 'scale', 'maxParameters', 'target', 'repetitions', 'timeout', 'plots', 'overhead', 'blame'];
const PLACEHOLDER = /^\{([A-Za-z_][\w.]*)\}$/;
export const DEFAULT_SCALE = [1, 2, 3, 4, 5];

export function readAnalysisConfig(file: string): AnalysisConfig {
  return parseAnalysisConfig(parseJson(readInputText(file), file), file);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isWhole = (value: unknown, min: number): value is number => typeof value === 'number' && Number.isInteger(value) && value >= min;

export function parseAnalysisConfig(json: unknown, file: string): AnalysisConfig {
  const fail = (field: string, problem: string) => fileError(file, `field '${field}': ${problem}`);
  if (!isObject(json)) throw fileError(file, 'an analysis config is a JSON object');
  for (const key of Object.keys(json)) {
    if (key === 'module') throw fail(key, 'the module is the command\'s argument (taintlens analyze MODULE --config FILE), not a config field');
    if (!FIELDS.includes(key)) throw fail(key, `unknown field (fields: ${FIELDS.join(', ')})`);
  }
  if (json.invoke !== undefined && json.invoke !== null && typeof json.invoke !== 'string') throw fail('invoke', 'must be the name of an export');
  if (json.args !== undefined && json.argv !== undefined) throw fail('argv', "give 'args' (export arguments) or 'argv' (a WASI command line), not both");
  if (!isObject(json.base)) throw fail('base', 'required: an object giving every {placeholder} its base value (where the taint run happens)');
  const base = json.base;
  const candidates: Candidate[] = [];
  const fill = (field: 'args' | 'argv'): string[] => {
    const value = json[field];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw fail(field, 'must be a list of numbers, strings or "{name}" placeholders');
    return value.map((item, index) => {
      if (typeof item === 'number' && Number.isFinite(item)) return String(item);
      if (typeof item !== 'string') throw fail(`${field}[${index}]`, `must be a number, a string or a "{name}" placeholder, got ${JSON.stringify(item)}`);
      const match = PLACEHOLDER.exec(item);
      if (!match) {
        if (item.includes('{')) throw fail(`${field}[${index}]`, `a placeholder is the whole argument and a name: "{size}", got '${item}'`);
        return item;
      }
      const name = match[1]!;
      const value = base[name];
      if (value === undefined) throw fail(`base.${name}`, `missing: placeholder {${name}} in ${field}[${index}] needs a base value`);
      if (typeof value !== 'number' || !Number.isFinite(value)) throw fail(`base.${name}`, `must be a number, got ${JSON.stringify(value)}`);
      if (candidates.some((c) => c.name === name)) throw fail(`${field}[${index}]`, `parameter ${name} is placed twice`);
      candidates.push({ name, target: { kind: field === 'args' ? 'arg' : 'argv', index }, base: value });
      return String(value);
    });
  };
  const args = fill('args');
  const argv = fill('argv');
  if (candidates.length === 0) throw fail(json.argv !== undefined ? 'argv' : 'args', 'name at least one parameter with a "{name}" placeholder');
  for (const name of Object.keys(base)) {
    if (!candidates.some((c) => c.name === name)) throw fail(`base.${name}`, `no placeholder {${name}} in ${json.argv !== undefined ? 'argv' : 'args'}`);
  }
  const known = (field: string, name: string) => {
    if (!candidates.some((c) => c.name === name)) throw fail(`${field}.${name}`, `not a parameter (placeholders: ${candidates.map((c) => c.name).join(', ')})`);
  };
  let parameters: Map<string, number[]> | null = null;
  if (json.parameters !== undefined) {
    if (!isObject(json.parameters) || Object.keys(json.parameters).length === 0) {
      throw fail('parameters', 'must map each model parameter to its list of values (leave it out to have the taint run propose them)');
    }
    parameters = new Map();
    for (const [name, raw] of Object.entries(json.parameters)) {
      known('parameters', name);
      if (!Array.isArray(raw) || raw.length < 2) throw fail(`parameters.${name}`, 'must be a list of at least two numbers');
      raw.forEach((v, i) => {
        if (typeof v !== 'number' || !(v > 0)) throw fail(`parameters.${name}[${i}]`, `must be a positive number, got ${JSON.stringify(v)}`);
      });
      if (new Set(raw).size !== raw.length) throw fail(`parameters.${name}`, 'values repeat');
      parameters.set(name, raw as number[]);
    }
  }
  const scale = json.scale ?? DEFAULT_SCALE;
  if (!Array.isArray(scale) || scale.length < 2 || scale.some((s) => typeof s !== 'number' || !(s > 0))) {
    throw fail('scale', 'must be a list of at least two positive multipliers of the base value');
  }
  const maxParameters = json.maxParameters ?? 3;
  if (!isWhole(maxParameters, 1) || maxParameters > 8) throw fail('maxParameters', 'must be a whole number from 1 to 8');
  const target: Record<string, number> = {};
  if (json.target !== undefined) {
    if (!isObject(json.target)) throw fail('target', 'must map parameter names to the scale to extrapolate to, e.g. {"size": 64}');
    for (const [name, value] of Object.entries(json.target)) {
      known('target', name);
      if (typeof value !== 'number' || !(value > 0)) throw fail(`target.${name}`, `must be a positive number, got ${JSON.stringify(value)}`);
      target[name] = value;
    }
  }
  const repetitions = json.repetitions ?? 5;
  if (!isWhole(repetitions, 1)) throw fail('repetitions', 'must be a whole number ≥ 1');
  const timeout = json.timeout ?? 60;
  if (typeof timeout !== 'number' || !(timeout > 0)) throw fail('timeout', 'must be a positive number of seconds');
  const plots = json.plots ?? 5;
  if (!isWhole(plots, 1)) throw fail('plots', 'must be a whole number ≥ 1 (ranked call paths plotted)');
  return {
    file, invoke: (json.invoke as string | null | undefined) ?? null, args, argv, candidates, parameters,
    scale: scale as number[], maxParameters, target, repetitions, timeoutMs: timeout * 1000, plots,
    overhead: parseOverhead(json.overhead, repetitions, fail),
    blame: parseBlame(json.blame, fail),
  };
}

type Fail = (field: string, problem: string) => Error;

function parseOverhead(value: unknown, repetitions: number, fail: Fail): AnalysisConfig['overhead'] {
  if (value === false) return null;
  if (value === undefined) return { rounds: Math.min(repetitions, 3) };
  if (!isObject(value)) throw fail('overhead', 'must be {"rounds": N} or false (no overhead comparison)');
  for (const key of Object.keys(value)) if (key !== 'rounds') throw fail(`overhead.${key}`, 'unknown field (rounds)');
  const rounds = value.rounds ?? Math.min(repetitions, 3);
  if (!isWhole(rounds, 1)) throw fail('overhead.rounds', 'must be a whole number ≥ 1');
  return { rounds };
}

function parseBlame(value: unknown, fail: Fail): AnalysisConfig['blame'] {
  if (value === false) return null;
  if (value === undefined) return { period: 10_000, points: [] };
  if (!isObject(value)) throw fail('blame', 'must be {"period": N, "points": [FUNCTION, ...]} or false (no blame table)');
  for (const key of Object.keys(value)) if (key !== 'period' && key !== 'points') throw fail(`blame.${key}`, 'unknown field (period, points)');
  const period = value.period ?? 10_000;
  if (!isWhole(period, 1)) throw fail('blame.period', 'must be a whole number of instructions ≥ 1');
  const points = value.points ?? [];
  if (!Array.isArray(points) || points.some((p) => typeof p !== 'string' || p === '')) throw fail('blame.points', 'must be a list of function names');
  return { period, points: points as string[] };
}
