// Input files checked by schema: every problem is one line naming the file, the field path and
// what was expected; the shipped host-import databases pass their own schema.
import { expect, test } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fieldPath } from '../../src/util/validate.js';
import { loadLibrary, shippedLibraryDir, validateLibrary } from '../../src/taint/library.js';

test('a field path reads as the user wrote it; an import "module.name" key is bracketed', () => {
  expect(fieldPath(['parameters', 'n', 1])).toBe('parameters.n[1]');
  expect(fieldPath(['imports', 'env.MPI_Send', 'cost', 'args', 0])).toBe('imports["env.MPI_Send"].cost.args[0]');
});

test('every shipped library passes the schema and keeps its rules', () => {
  const files = readdirSync(shippedLibraryDir()).filter((f) => f.endsWith('.json'));
  expect(files.length).toBeGreaterThanOrEqual(3);
  for (const file of files)
    expect(Object.keys(loadLibrary(join(shippedLibraryDir(), file)).imports).length).toBeGreaterThan(0);
  const mpi = loadLibrary(join(shippedLibraryDir(), 'mpi-example.json'));
  expect(mpi.imports['env.MPI_Comm_size']).toEqual({ result: 'none', sources: [{ label: 'p', arg: 1, bytes: 4 }] });
  expect(mpi.imports['env.MPI_Send']).toEqual({ result: 'none', cost: { params: ['p'], args: [1] } });
});

test.each([
  [3, 'lib.json: a library is a JSON object with "imports"'],
  [{}, `lib.json: field 'imports': required: an object keyed by "module.name"`],
  [{ imports: { fd_write: {} } }, `lib.json: field 'imports.fd_write': an import key is "module.name"`],
  [{ imports: { 'env.f': 3 } }, `lib.json: field 'imports["env.f"]': must be an object`],
  [
    { imports: { 'env.f': { result: 'all' } } },
    `lib.json: field 'imports["env.f"].result': must be "union" or "none", got "all"`,
  ],
  [
    { imports: { 'env.f': { sources: [{ label: '' }] } } },
    `lib.json: field 'imports["env.f"].sources[0].label': needs a "label" name`,
  ],
  [
    { imports: { 'env.f': { sources: [{ label: 'p' }] } } },
    `lib.json: field 'imports["env.f"].sources[0]': must label the "result" or an "arg"`,
  ],
  [
    { imports: { 'env.f': { sources: [{ label: 'p', arg: -1 }] } } },
    `lib.json: field 'imports["env.f"].sources[0].arg': must be a whole number ≥ 0`,
  ],
  [
    { imports: { 'env.f': { cost: { args: [1.5] } } } },
    `lib.json: field 'imports["env.f"].cost.args[0]': must be an argument index (a whole number ≥ 0)`,
  ],
  [
    { imports: { 'env.f': { cost: { params: 'p' } } } },
    `lib.json: field 'imports["env.f"].cost.params': must be a list of names`,
  ],
])('a library with a mistake (%j) is one line naming the file and the field', (library, message) => {
  expect(() => validateLibrary(library, 'lib.json')).toThrow(
    new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
  );
});
