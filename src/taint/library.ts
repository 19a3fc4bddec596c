// The host-import database (`--library db.json`): how labels flow through imports the module calls.
// By default an import's result carries the union of its arguments' labels; an entry can make an
// import a source of a named label (written to its result or to the memory an argument points to)
// or give it a cost depending on parameters and on the labels of some arguments. Format: docs/taint.md.
import { readInputText } from '../util/read-file.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileError, messageOf } from '../util/errors.js';
import type { ImportRule } from '../../instrument/passes/taint.js';

export interface Library {
  imports: Record<string, ImportRule>;
}

/** Where the shipped databases live (library/ at the package root). */
export function shippedLibraryDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // src/taint (source) or dist/src/taint (built): walk up to the folder holding library/.
  return here.includes(`${join('dist', 'src')}`) ? join(here, '..', '..', '..', 'library') : join(here, '..', '..', 'library');
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
    return WebAssembly.Module.imports(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>)).some((i) => i.module === module);
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

export function validateLibrary(data: unknown, file: string): Library {
  const fail = (what: string) => fileError(file, `invalid library: ${what}`);
  if (!isObject(data)) throw fail('expected an object with "imports"');
  const imports = data.imports;
  if (!isObject(imports)) throw fail('"imports" must be an object keyed by "module.name"');
  const out: Record<string, ImportRule> = {};
  for (const [name, raw] of Object.entries(imports)) {
    if (!/^[^.]+\..+$/.test(name)) throw fail(`import key '${name}' must be "module.name"`);
    if (!isObject(raw)) throw fail(`entry '${name}' must be an object`);
    const rule: ImportRule = {};
    if (raw.result !== undefined) {
      if (raw.result !== 'union' && raw.result !== 'none') throw fail(`${name}.result must be "union" or "none"`);
      rule.result = raw.result;
    }
    if (raw.sources !== undefined) {
      if (!Array.isArray(raw.sources)) throw fail(`${name}.sources must be a list`);
      rule.sources = raw.sources.map((s: unknown, i: number) => {
        if (!isObject(s) || typeof s.label !== 'string' || s.label === '') throw fail(`${name}.sources[${i}] needs a "label" name`);
        const source: NonNullable<ImportRule['sources']>[number] = { label: s.label };
        if (s.result !== undefined) {
          if (typeof s.result !== 'boolean') throw fail(`${name}.sources[${i}].result must be true or false`);
          source.result = s.result;
        }
        for (const field of ['arg', 'bytes', 'bytesArg'] as const) {
          if (s[field] === undefined) continue;
          if (!Number.isInteger(s[field]) || (s[field] as number) < 0) throw fail(`${name}.sources[${i}].${field} must be a whole number`);
          source[field] = s[field] as number;
        }
        if (!source.result && source.arg === undefined) throw fail(`${name}.sources[${i}] must label the "result" or an "arg"`);
        return source;
      });
    }
    if (raw.cost !== undefined) {
      const cost = raw.cost;
      if (!isObject(cost)) throw fail(`${name}.cost must be an object`);
      const params = cost.params ?? [];
      const args = cost.args ?? [];
      if (!Array.isArray(params) || !params.every((p) => typeof p === 'string')) throw fail(`${name}.cost.params must be a list of names`);
      if (!Array.isArray(args) || !args.every((a) => Number.isInteger(a) && a >= 0)) throw fail(`${name}.cost.args must be a list of argument indices`);
      rule.cost = { params: params as string[], args: args as number[] };
    }
    out[name] = rule;
  }
  return { imports: out };
}

export function mergeLibraries(...libraries: Library[]): Library {
  return { imports: Object.assign({}, ...libraries.map((l) => l.imports)) as Record<string, ImportRule> };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
