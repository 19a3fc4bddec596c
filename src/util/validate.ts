// Input files checked against a schema (zod): the first problem becomes one line naming the file,
// the field path and what was expected (`spec.json: field 'parameters.n[1]': must be a number,
// got "ten"`). The readers define their schemas with the helpers here, so every input file words
// unknown fields and wrong types the same way.
import * as z from 'zod';
import { fileError, type UserError } from './errors.js';

/** `parameters.n[1]` for the path ['parameters', 'n', 1]. */
export function fieldPath(path: readonly PropertyKey[]): string {
  // A key holding a dot (an import "module.name") is bracketed, so the path reads one way.
  const part = (key: PropertyKey, i: number) =>
    typeof key === 'number'
      ? `[${key}]`
      : String(key).includes('.')
        ? `[${JSON.stringify(String(key))}]`
        : `${i === 0 ? '' : '.'}${String(key)}`;
  return path.map(part).join('');
}

/** A JSON value as a message shows it: `"ten"`, `true`, `[1,2]`, `nothing` for an absent field. */
export function shown(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

/** An export's arguments or a command line in a spec or config: numbers, strings, `{name}` placeholders. */
export const argumentList = z
  .array(
    z.union([z.number(), z.string()], {
      error: (issue) => `must be a number, a string or a "{name}" placeholder, got ${shown(issue.input)}`,
    }),
    { error: 'must be a list of numbers, strings or "{name}" placeholders' },
  )
  .optional();

/** The one-line error of the first issue, `file: field 'PATH': PROBLEM` (or `file: PROBLEM` at the root). */
function issueError(issue: z.core.$ZodIssue, file: string): UserError {
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  return path.length === 0
    ? fileError(file, issue.message)
    : fileError(file, `field '${fieldPath(path)}': ${issue.message}`);
}

/** Wording of the issues a schema leaves to the library, so none reads "Invalid input". */
const fallbackMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${issue.expected === 'int' ? 'a whole number' : `of type ${issue.expected}`}, got ${shown(issue.input)}`;
    case 'invalid_value':
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, got ${shown(issue.input)}`;
    case 'unrecognized_keys':
      return 'unknown field';
    default:
      return undefined;
  }
};

/** Parses `data` with `schema`; the first problem is thrown as one line naming `file` and the field. */
export function validate<S extends z.ZodType>(schema: S, data: unknown, file: string): z.output<S> {
  const result = schema.safeParse(data, { reportInput: true, error: fallbackMessage });
  if (!result.success) throw issueError(result.error.issues[0]!, file);
  return result.data;
}

/**
 * An object that refuses fields it does not know, listing the ones it does: `unknown field
 * (fields: a, b)` at the top of a file, `unknown field (a, b)` inside it.
 */
export function strictFields<Shape extends z.core.$ZodLooseShape>(
  shape: Shape,
  options: { top: boolean; notObject: string },
) {
  const names = Object.keys(shape).filter(
    (name) => !(shape[name] instanceof z.ZodOptional && shape[name].unwrap() instanceof z.ZodNever),
  );
  const known = options.top ? `fields: ${names.join(', ')}` : names.join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field (${known})`
        : issue.code === 'invalid_type'
          ? options.notObject
          : undefined,
  });
}

/** A whole number from `min` (to `max`), with one message for every way of missing it. */
export function wholeNumber(min: number, message: string, max = Number.MAX_SAFE_INTEGER) {
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
}

/** A number above zero. */
export function positiveNumber(message: string) {
  return z.number({ error: message }).positive({ error: message });
}

/** A problem found across fields once each is well-formed (a placeholder naming no parameter). */
export class FieldProblem extends Error {
  constructor(
    readonly path: PropertyKey[],
    message: string,
  ) {
    super(message);
  }
}

/** Throws the problem at `path`; `resolvedBy` turns it into the schema's issue. */
export function problem(path: PropertyKey[], message: string): never {
  throw new FieldProblem(path, message);
}

/** `schema`, then `resolve` on what it parsed: checks across fields, defaults that depend on others. */
export function resolvedBy<S extends z.ZodType, T>(schema: S, resolve: (value: z.output<S>) => T) {
  return schema.transform((value, ctx): T => {
    try {
      return resolve(value);
    } catch (error) {
      if (!(error instanceof FieldProblem)) throw error;
      ctx.addIssue({ code: 'custom', path: error.path, message: error.message, input: undefined });
      return z.NEVER;
    }
  });
}

export { z };
