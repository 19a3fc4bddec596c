// The experiment spec (`taintlens experiment SPEC`): a JSON file naming the module, the export and
// its arguments (or a WASI command's argv) with {placeholders}, the parameters and their values,
// repetitions, metrics, the measurement mode, how to mark parameters for the taint analysis and,
// for a WASI command, its directories, environment and standard input. The schema below is the
// format: every problem is one line naming the spec file, the field and what was expected.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readInputText } from '../util/read-file.js';
import {
  argumentList,
  positiveNumber,
  problem,
  resolvedBy,
  shown,
  strictFields,
  validate,
  wholeNumber,
  z,
} from '../util/validate.js';
import { parseJson } from '../io/json.js';
import { isMeasureMode, MEASURE_MODES, type MeasureMode } from './modes.js';
import { METRICS, type Metric } from './campaign.js';
import type { VariedParameter } from './grid.js';
import type { ExperimentDefinition } from './experiment.js';
import type { ParamSpec } from '../taint/analyze.js';
import type { Preopen, WasiConfig } from '../runtime/protocol.js';
import { MAX_RANKS } from '../runtime/spmd/shared-state.js';

const PLACEHOLDER = /\{([^{}]*)\}/;

const parameterValues = z
  .array(z.number({ error: (issue) => `must be a number, got ${shown(issue.input)}` }), {
    error: 'must be a non-empty list of numbers',
  })
  .min(1, { error: 'must be a non-empty list of numbers' })
  .refine((values) => new Set(values).size === values.length, { error: 'values repeat' });

const ranksMessage = `must be a whole number from 1 to ${MAX_RANKS} or a "{name}" placeholder`;

const taintField = strictFields(
  {
    params: z
      .record(
        z.string(),
        z.string({ error: (issue) => `must be "argK" (K from 0) or "global:EXPORT", got ${shown(issue.input)}` }),
        { error: 'must map parameter names to "argK" or "global:EXPORT"' },
      )
      .optional(),
    report: z.string({ error: 'must be the path of a taint report (taintlens taint --json)' }).optional(),
  },
  { top: false, notObject: 'must be {"params": {NAME: "argK" | "global:EXPORT"}} or {"report": "taint.json"}' },
);

const WASI_TEXT = 'must be a list of "HOST" or "HOST:GUEST" folders (HOST relative to the spec)';

/** The spec's fields as written, with their defaults. */
export const specFields = strictFields(
  {
    module: z
      .string({ error: 'required: the path of the .wasm module (relative to the spec)' })
      .min(1, { error: 'required: the path of the .wasm module (relative to the spec)' }),
    invoke: z.string({ error: 'must be the name of an export' }).nullable().optional(),
    args: argumentList,
    argv: argumentList,
    parameters: z.record(z.string().regex(/^[A-Za-z_][\w.]*$/), parameterValues, {
      error: (issue) =>
        issue.code === 'invalid_key'
          ? 'a parameter name is a letter or _ followed by letters, digits, _ or .'
          : 'required: an object mapping each parameter name to its list of values',
    }),
    repetitions: wholeNumber(1, 'must be a whole number ≥ 1').default(5),
    metrics: z
      .array(
        z.enum(METRICS as [Metric, ...Metric[]], {
          error: (issue) => `unknown metric ${shown(issue.input)} (${METRICS.join(', ')})`,
        }),
        { error: `must be a non-empty list of ${METRICS.join(', ')}` },
      )
      .min(1, { error: `must be a non-empty list of ${METRICS.join(', ')}` })
      .default(['time', 'instructions']),
    mode: z
      .custom<MeasureMode>((value) => typeof value === 'string' && isMeasureMode(value), {
        error: (issue) => `unknown mode ${shown(issue.input)} (${MEASURE_MODES.join(', ')})`,
      })
      .default('selective'),
    taint: taintField.optional(),
    trace: wholeNumber(0, 'must be a whole number of visits, 0 to 1000000', 1_000_000).default(0),
    design: z
      .enum(['grid', 'auto'], { error: (issue) => `must be "grid" or "auto", got ${shown(issue.input)}` })
      .default('grid'),
    timeout: positiveNumber('must be a positive number of seconds').default(60),
    ranks: z
      .union([wholeNumber(1, ranksMessage, MAX_RANKS), z.string()], {
        error: (issue) => `${ranksMessage}, got ${shown(issue.input)}`,
      })
      .optional(),
    dir: z.array(z.string({ error: WASI_TEXT }).min(1, { error: WASI_TEXT }), { error: WASI_TEXT }).optional(),
    dirRw: z.array(z.string({ error: WASI_TEXT }).min(1, { error: WASI_TEXT }), { error: WASI_TEXT }).optional(),
    env: z
      .record(
        z.string().regex(/^[^=]+$/),
        z.string({ error: (issue) => `must be a string, got ${shown(issue.input)}` }),
        {
          error: (issue) =>
            issue.code === 'invalid_key'
              ? 'a variable name is not empty and has no "="'
              : 'must map variable names to strings',
        },
      )
      .optional(),
    stdin: z
      .string({ error: 'must be the path of a file (relative to the spec)' })
      .min(1, { error: 'must be the path of a file (relative to the spec)' })
      .optional(),
  },
  { top: true, notObject: 'an experiment spec is a JSON object' },
);

export type SpecFields = z.output<typeof specFields>;

/** The engine's definition, with the module named (resolved against the spec's folder) instead of read. */
export type ExperimentSpec = z.output<ReturnType<typeof specSchema>>;

type Resolved = Omit<ExperimentDefinition, 'file' | 'bytes'> & { file: string; module: string };

/** The spec fields resolved: placeholders bound to parameters, paths made absolute, files checked. */
function specSchema(file: string) {
  return resolvedBy(specFields, (spec): Resolved => resolveSpec(spec, file));
}

export function readSpec(file: string): ExperimentSpec {
  return parseSpec(parseJson(readInputText(file), file), file);
}

export function parseSpec(json: unknown, file: string): ExperimentSpec {
  return validate(specSchema(file), json, file);
}

function resolveSpec(spec: SpecFields, file: string): Resolved {
  const here = dirname(resolve(file));
  if (spec.args !== undefined && spec.argv !== undefined)
    problem(['argv'], "give 'args' (export arguments) or 'argv' (a WASI command line), not both");
  const args = (spec.args ?? []).map(String);
  const argv = (spec.argv ?? []).map(String);
  const values = new Map(Object.entries(spec.parameters));
  if (values.size === 0) problem(['parameters'], 'name at least one parameter');
  const parameters: VariedParameter[] = [];
  for (const [kind, field, items] of [
    ['arg', 'args', args],
    ['argv', 'argv', argv],
  ] as const) {
    items.forEach((item, index) => {
      const match = PLACEHOLDER.exec(item);
      if (!match) return;
      const name = match[1]!;
      if (item !== `{${name}}`) problem([field, index], `a placeholder must be the whole argument, got '${item}'`);
      const parameterValues = values.get(name);
      if (!parameterValues)
        return problem(
          [field, index],
          `placeholder {${name}} names no parameter (parameters: ${[...values.keys()].join(', ')})`,
        );
      if (parameters.some((p) => p.name === name)) problem([field, index], `parameter ${name} is placed twice`);
      parameters.push({ name, target: { kind, index }, values: parameterValues });
    });
  }
  const ranks = resolveRanks(spec.ranks, values, parameters);
  for (const name of values.keys()) {
    if (!parameters.some((p) => p.name === name))
      problem(
        ['parameters', name],
        `no placeholder {${name}} in ${argv.length ? 'argv' : 'args'}: the parameter would not reach the program`,
      );
  }
  // Parameters in the order they were declared.
  const order = [...values.keys()];
  parameters.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const mode: MeasureMode = spec.mode.startsWith('filter:') ? `filter:${resolve(here, spec.mode.slice(7))}` : spec.mode;
  const wasi = resolveWasi(spec, here);
  return {
    file,
    module: resolve(here, spec.module),
    invoke: spec.invoke ?? null,
    args,
    argv,
    parameters,
    repetitions: spec.repetitions,
    metrics: [...new Set(spec.metrics)],
    mode,
    trace: spec.trace,
    design: spec.design,
    timeoutMs: spec.timeout * 1000,
    ...(spec.taint !== undefined ? { taint: resolveTaint(spec.taint, here) } : {}),
    ...(ranks !== undefined ? { ranks } : {}),
    ...(wasi ? { wasi } : {}),
  };
}

/**
 * `"ranks": 4` (fixed SPMD ranks) or `"ranks": "{p}"` (the parameter p is the rank count); adds the
 * latter to `parameters`, or marks p's placeholder in the arguments as the rank count too.
 */
function resolveRanks(
  value: SpecFields['ranks'],
  values: Map<string, number[]>,
  parameters: VariedParameter[],
): number | undefined {
  if (value === undefined || typeof value === 'number') return value;
  const match = /^\{([^{}]+)\}$/.exec(value);
  if (!match) return problem(['ranks'], `${ranksMessage}, got ${shown(value)}`);
  const name = match[1]!;
  const counts = values.get(name);
  if (!counts)
    return problem(
      ['ranks'],
      `placeholder {${name}} names no parameter (parameters: ${[...values.keys()].join(', ')})`,
    );
  const bad = counts.find((c) => !Number.isInteger(c) || c < 1 || c > MAX_RANKS);
  if (bad !== undefined)
    problem(['parameters', name], `rank counts must be whole numbers from 1 to ${MAX_RANKS}, got ${bad}`);
  // Placed in the arguments too: the program is told its rank count (CoMD's -i).
  const placed = parameters.find((p) => p.name === name);
  if (placed) placed.ranks = true;
  else parameters.push({ name, target: { kind: 'ranks', index: 0 }, values: counts });
  return undefined;
}

function resolveTaint(
  taint: NonNullable<SpecFields['taint']>,
  here: string,
): { params: ParamSpec[] } | { report: string } {
  if (taint.report !== undefined) {
    if (taint.params !== undefined) problem(['taint'], "give 'params' or 'report', not both");
    return { report: resolve(here, taint.report) };
  }
  return {
    params: Object.entries(taint.params ?? {}).map(([name, where]) => {
      const match = /^(?:arg(\d+)|global:(.+))$/.exec(where);
      if (!match)
        return problem(['taint', 'params', name], `must be "argK" (K from 0) or "global:EXPORT", got ${shown(where)}`);
      return match[1] !== undefined ? { name, arg: Number(match[1]) } : { name, global: match[2]! };
    }),
  };
}

/**
 * What a WASI command gets besides argv: `dir` folders (read-only, "HOST" or "HOST:GUEST" as
 * `--dir` takes them, HOST relative to the spec), `dirRw` folders it may write (as `--dir-rw`), `env` and `stdin` (a file relative to the spec).
 * Absent when the spec gives none of them. The clock stays real: the campaign measures time.
 */
function resolveWasi(spec: SpecFields, here: string): WasiConfig | undefined {
  if (spec.dir === undefined && spec.dirRw === undefined && spec.env === undefined && spec.stdin === undefined)
    return undefined;
  const preopen = (field: 'dir' | 'dirRw', entry: string, index: number): Preopen => {
    // Split at the last colon so a host path keeps its own; GUEST is the name the program opens.
    const colon = entry.lastIndexOf(':');
    const host = colon > 0 ? entry.slice(0, colon) : entry;
    const guest = colon > 0 ? entry.slice(colon + 1) : entry;
    if (host === '' || guest === '') problem([field, index], `expected "HOST" or "HOST:GUEST", got ${shown(entry)}`);
    const path = resolve(here, host);
    if (!isDirectory(path)) problem([field, index], `${path} is not a folder`);
    return { host: path, guest, writable: field === 'dirRw' };
  };
  const preopens = [
    ...(spec.dir ?? []).map((entry, index) => preopen('dir', entry, index)),
    ...(spec.dirRw ?? []).map((entry, index) => preopen('dirRw', entry, index)),
  ];
  let stdin: Uint8Array | undefined;
  if (spec.stdin !== undefined) {
    const path = resolve(here, spec.stdin);
    try {
      stdin = new Uint8Array(readFileSync(path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problem(
        ['stdin'],
        `${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : 'cannot be read'}`,
      );
    }
  }
  return { preopens, env: { ...(spec.env ?? {}) }, clock: 'real', ...(stdin ? { stdin } : {}) };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The first way a spec differs from the one an --out folder already holds (its spec.json), in
 * the user's terms, or null: the same fields with the same values after defaults, except that a
 * parameter may gain values (the grid grows; the points measured are kept).
 */
export function specDifference(recorded: unknown, wanted: unknown): string | null {
  const there = specFields.safeParse(recorded);
  const here = specFields.parse(wanted);
  if (!there.success) return 'its spec.json is not a valid spec';
  const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));
  const names = (spec: SpecFields) => Object.keys(spec.parameters).join(', ');
  if (names(there.data) !== names(here))
    return `parameters: ${names(there.data) || 'none'} there, ${names(here) || 'none'} here`;
  for (const [name, values] of Object.entries(there.data.parameters)) {
    const dropped = values.filter((v) => !here.parameters[name]!.includes(v));
    if (dropped.length > 0)
      return `parameters.${name}: ${show(values)} there, ${show(here.parameters[name])} here (values measured there are missing)`;
  }
  const fields = new Set([...Object.keys(there.data), ...Object.keys(here)]);
  for (const field of fields) {
    if (field === 'parameters') continue;
    const a = there.data[field as keyof SpecFields];
    const b = here[field as keyof SpecFields];
    if (JSON.stringify(a) !== JSON.stringify(b)) return `${field}: ${show(a)} there, ${show(b)} here`;
  }
  return null;
}
