// The analysis config (`taintlens analyze MODULE --config analysis.json`): how to call the module
// (an export's arguments or a WASI command line, with {name} placeholders), every placeholder's
// base value, optionally the model parameters and their values (else the taint step proposes
// them), the target scale, repetitions and the overhead and blame steps. The schema below is the
// format: every problem is one line naming the config file, the field and what was expected.
import { readInputText } from '../util/read-file.js';
import { parseJson } from '../io/json.js';
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
import type { VariedParameter } from '../experiment/grid.js';
import { COVERAGE_MODES } from '../taint/coverage-mode.js';

export interface Candidate {
  name: string;
  target: VariedParameter['target'];
  base: number;
}

const PLACEHOLDER = /^\{([A-Za-z_][\w.]*)\}$/;
export const DEFAULT_SCALE = [1, 2, 3, 4, 5];

const positive = z
  .number({ error: (issue) => `must be a positive number, got ${shown(issue.input)}` })
  .positive({ error: (issue) => `must be a positive number, got ${shown(issue.input)}` });

const PARAMETERS_TEXT =
  'must map each model parameter to its list of values (leave it out to have the taint run propose them)';
const SCALE_TEXT = 'must be a list of at least two positive multipliers of the base value';
const OVERHEAD_TEXT = 'must be {"rounds": N} or false (no overhead comparison)';
const BLAME_TEXT = 'must be {"period": N, "points": [FUNCTION, ...]} or false (no blame table)';

/** The config's fields as written, with their defaults. */
export const configFields = strictFields(
  {
    module: z
      .never({
        error: "the module is the command's argument (taintlens analyze MODULE --config FILE), not a config field",
      })
      .optional(),
    invoke: z.string({ error: 'must be the name of an export' }).nullable().optional(),
    args: argumentList,
    argv: argumentList,
    base: z.record(z.string(), z.unknown(), {
      error: 'required: an object giving every {placeholder} its base value (where the taint run happens)',
    }),
    parameters: z
      .record(
        z.string(),
        z
          .array(positive, { error: 'must be a list of at least two numbers' })
          .min(2, { error: 'must be a list of at least two numbers' })
          .refine((values) => new Set(values).size === values.length, { error: 'values repeat' }),
        { error: PARAMETERS_TEXT },
      )
      .refine((parameters) => Object.keys(parameters).length > 0, { error: PARAMETERS_TEXT })
      .optional(),
    scale: z
      .array(z.number({ error: SCALE_TEXT }).positive({ error: SCALE_TEXT }), { error: SCALE_TEXT })
      .min(2, { error: SCALE_TEXT })
      .default(DEFAULT_SCALE),
    maxParameters: wholeNumber(1, 'must be a whole number from 1 to 8', 8).default(3),
    target: z
      .record(z.string(), positive, {
        error: 'must map parameter names to the scale to extrapolate to, e.g. {"size": 64}',
      })
      .optional(),
    repetitions: wholeNumber(1, 'must be a whole number ≥ 1').default(5),
    timeout: positiveNumber('must be a positive number of seconds').default(60),
    plots: wholeNumber(1, 'must be a whole number ≥ 1 (ranked call paths plotted)').default(5),
    taintCoverage: z
      .enum(COVERAGE_MODES, { error: `must be ${COVERAGE_MODES.map((m) => `"${m}"`).join(', ')}` })
      .default('auto'),
    overhead: z
      .union(
        [
          z.literal(false),
          strictFields(
            { rounds: wholeNumber(1, 'must be a whole number ≥ 1').optional() },
            { top: false, notObject: OVERHEAD_TEXT },
          ),
        ],
        { error: OVERHEAD_TEXT },
      )
      .optional(),
    blame: z
      .union(
        [
          z.literal(false),
          strictFields(
            {
              period: wholeNumber(1, 'must be a whole number of instructions ≥ 1').default(10_000),
              points: z
                .array(z.string({ error: 'must be a function name' }).min(1, { error: 'must be a function name' }), {
                  error: 'must be a list of function names',
                })
                .default([]),
            },
            { top: false, notObject: BLAME_TEXT },
          ),
        ],
        { error: BLAME_TEXT },
      )
      .optional(),
  },
  { top: true, notObject: 'an analysis config is a JSON object' },
);

export type ConfigFields = z.output<typeof configFields>;

export type AnalysisConfig = z.output<ReturnType<typeof configSchema>>;

function configSchema(file: string) {
  return resolvedBy(configFields, (config) => resolveConfig(config, file));
}

export function readAnalysisConfig(file: string): AnalysisConfig {
  return parseAnalysisConfig(parseJson(readInputText(file), file), file);
}

export function parseAnalysisConfig(json: unknown, file: string): AnalysisConfig {
  return validate(configSchema(file), json, file);
}

function resolveConfig(config: ConfigFields, file: string) {
  if (config.args !== undefined && config.argv !== undefined)
    problem(['argv'], "give 'args' (export arguments) or 'argv' (a WASI command line), not both");
  const base = config.base;
  const candidates: Candidate[] = [];
  const fill = (field: 'args' | 'argv'): string[] =>
    (config[field] ?? []).map((item, index) => {
      if (typeof item === 'number') return String(item);
      const match = PLACEHOLDER.exec(item);
      if (!match) {
        if (item.includes('{'))
          problem([field, index], `a placeholder is the whole argument and a name: "{size}", got '${item}'`);
        return item;
      }
      const name = match[1]!;
      const value = base[name];
      if (value === undefined)
        problem(['base', name], `missing: placeholder {${name}} in ${field}[${index}] needs a base value`);
      if (typeof value !== 'number' || !Number.isFinite(value))
        return problem(['base', name], `must be a number, got ${shown(value)}`);
      if (candidates.some((c) => c.name === name)) problem([field, index], `parameter ${name} is placed twice`);
      candidates.push({ name, target: { kind: field === 'args' ? 'arg' : 'argv', index }, base: value });
      return String(value);
    });
  const args = fill('args');
  const argv = fill('argv');
  const placed = config.argv !== undefined ? 'argv' : 'args';
  if (candidates.length === 0) problem([placed], 'name at least one parameter with a "{name}" placeholder');
  for (const name of Object.keys(base)) {
    if (!candidates.some((c) => c.name === name)) problem(['base', name], `no placeholder {${name}} in ${placed}`);
  }
  const known = (field: string, name: string) => {
    if (!candidates.some((c) => c.name === name))
      problem([field, name], `not a parameter (placeholders: ${candidates.map((c) => c.name).join(', ')})`);
  };
  for (const name of Object.keys(config.parameters ?? {})) known('parameters', name);
  for (const name of Object.keys(config.target ?? {})) known('target', name);
  const overheadRounds = Math.min(config.repetitions, 3);
  return {
    file,
    invoke: config.invoke ?? null,
    /** Export arguments or argv with every placeholder filled in by its base value. */
    args,
    argv,
    /** Every placeholder: a parameter the taint run labels and the experiment may vary. */
    candidates,
    /** Model parameters named by the config, with their values; null: proposed by the taint step. */
    parameters: config.parameters ? new Map(Object.entries(config.parameters)) : null,
    /** Multipliers of the base value for a proposed parameter's values. */
    scale: config.scale,
    /** At most this many proposed parameters. */
    maxParameters: config.maxParameters,
    target: { ...(config.target ?? {}) },
    repetitions: config.repetitions,
    timeoutMs: config.timeout * 1000,
    /** Ranked call paths plotted in the HTML report. */
    plots: config.plots,
    /** Whether the taint step instruments only the functions a first run enters (src/taint/coverage.ts). */
    taintCoverage: config.taintCoverage,
    overhead: config.overhead === false ? null : { rounds: config.overhead?.rounds ?? overheadRounds },
    blame: config.blame === false ? null : (config.blame ?? { period: 10_000, points: [] }),
  };
}
