// The host-import database (`--library db.json`): how labels flow through imports the module calls.
// By default an import's result carries the union of its arguments' labels; an entry can make an
// import a source of a named label (written to its result or to the memory an argument points to)
// or give it a cost depending on parameters and on the labels of some arguments. Format: docs/taint.md;
// the schema below checks it (a problem is one line naming the file, the field and what was expected).
import { readInputText } from '../util/read-file.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileError, messageOf } from '../util/errors.js';
import { shown, validate, wholeNumber, z } from '../util/validate.js';
import type { ImportRule } from '../../instrument/passes/taint.js';

/** Where the shipped databases live (library/ at the package root). */
export function shippedLibraryDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // src/taint (source) or dist/src/taint (built): walk up to the folder holding library/.
  return here.includes(`${join('dist', 'src')}`)
    ? join(here, '..', '..', '..', 'library')
    : join(here, '..', '..', 'library');
}

/**
 * The shipped databases for a module: WASI/AssemblyScript imports always, taintlens_mp (SPMD
 * message passing) when the module imports it — its source label `p` would otherwise be reported
 * as a parameter of every program.
 */
export function shippedLibraries(bytes: Uint8Array): Library[] {
  const names = ['wasi.json'];
  if (importsModule(bytes, 'taintlens_mp')) names.push('taintlens_mp.json');
  return names.map((name) => loadLibrary(join(shippedLibraryDir(), name)));
}

function importsModule(bytes: Uint8Array, module: string): boolean {
  try {
    return WebAssembly.Module.imports(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>)).some(
      (i) => i.module === module,
    );
  } catch {
    return false; // an invalid module fails later with its own one-line error
  }
}

export function loadLibrary(file: string): Library {
  const text = readInputText(file);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw fileError(file, `malformed library JSON: ${messageOf(error)}`);
  }
  return validateLibrary(data, file);
}

const WHOLE = 'must be a whole number ≥ 0';

const sourceRule = z
  .looseObject(
    {
      label: z.string({ error: 'needs a "label" name' }).min(1, { error: 'needs a "label" name' }),
      result: z.boolean({ error: 'must be true or false' }).optional(),
      arg: wholeNumber(0, WHOLE).optional(),
      bytes: wholeNumber(0, WHOLE).optional(),
      bytesArg: wholeNumber(0, WHOLE).optional(),
      withArgs: z
        .array(wholeNumber(0, 'must be an argument index (a whole number ≥ 0)'), {
          error: 'must be a list of argument indices',
        })
        .optional(),
    },
    { error: 'must be an object with a "label"' },
  )
  .refine((source) => source.result === true || source.arg !== undefined, {
    error: 'must label the "result" or an "arg"',
  });

const importRule = z.looseObject(
  {
    result: z
      .enum(['union', 'none'], { error: (issue) => `must be "union" or "none", got ${shown(issue.input)}` })
      .optional(),
    sources: z.array(sourceRule, { error: 'must be a list' }).optional(),
    cost: z
      .looseObject(
        {
          params: z
            .array(z.string({ error: 'must be a parameter name' }), { error: 'must be a list of names' })
            .default([]),
          args: z
            .array(wholeNumber(0, 'must be an argument index (a whole number ≥ 0)'), {
              error: 'must be a list of argument indices',
            })
            .default([]),
        },
        { error: 'must be an object' },
      )
      .optional(),
  },
  { error: 'must be an object' },
);

/** The database format (docs/taint.md): rules keyed by "module.name"; other fields (a description) are ignored. */
export const librarySchema = z
  .looseObject(
    {
      imports: z.record(z.string().regex(/^[^.]+\..+$/), importRule, {
        error: (issue) =>
          issue.code === 'invalid_key'
            ? 'an import key is "module.name"'
            : 'required: an object keyed by "module.name"',
      }),
    },
    { error: 'a library is a JSON object with "imports"' },
  )
  .transform(({ imports }): { imports: Record<string, ImportRule> } => ({
    imports: Object.fromEntries(
      Object.entries(imports).map(([name, { result, sources, cost }]) => [
        name,
        {
          ...(result !== undefined ? { result } : {}),
          ...(sources !== undefined
            ? {
                sources: sources.map(({ label, result, arg, bytes, bytesArg, withArgs }) => ({
                  label,
                  ...(result !== undefined ? { result } : {}),
                  ...(arg !== undefined ? { arg } : {}),
                  ...(bytes !== undefined ? { bytes } : {}),
                  ...(bytesArg !== undefined ? { bytesArg } : {}),
                  ...(withArgs !== undefined ? { withArgs } : {}),
                })),
              }
            : {}),
          ...(cost !== undefined ? { cost: { params: cost.params, args: cost.args } } : {}),
        } satisfies ImportRule,
      ]),
    ),
  }));

export type Library = z.output<typeof librarySchema>;

export function validateLibrary(data: unknown, file: string): Library {
  return validate(librarySchema, data, file);
}

export function mergeLibraries(...libraries: Library[]): Library {
  return { imports: Object.assign({}, ...libraries.map((l) => l.imports)) as Record<string, ImportRule> };
}
