// `taintlens instrument --mode sample` writes the sampling pass's flow facts to a binary file beside
// the site table (as the instrumentation cache keeps them): joined back, the table is the pass's own.
import { expect, test } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import { joinPackedFacts } from '../../instrument/facts-file.js';

test('the sample table keeps its facts in x.sites.facts, and the module runs with the table beside it', async () => {
  const dir = tempDir('taintlens-cli-');
  const kernel = join(dir, 'sum.wasm');
  writeFileSync(
    kernel,
    wat(`(module (memory 1)
  (func $run (export "run") (param $n i32) (result i32) (local $i i32)
    (loop $l
      (i32.store (i32.shl (local.get $i) (i32.const 2)) (i32.add (i32.load (i32.const 0)) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (i32.load (i32.const 8))))`),
  );
  const output = join(dir, 'sum.sample.wasm');
  const { code, stdout } = await cli(['instrument', kernel, '--mode', 'sample', '-o', output]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/sum\.sample\.sites\.facts/);
  const table = JSON.parse(readFileSync(join(dir, 'sum.sample.sites.json'), 'utf8'));
  expect(table.instrumented.facts).toBe(join(dir, 'sum.sample.sites.facts'));
  expect(table.passes.sample.functions[0].facts).toBeUndefined();
  const { facts: _facts, ...instrumented } = table.instrumented;
  const joined = joinPackedFacts(
    { ...table, instrumented },
    readFileSync(join(dir, 'sum.sample.sites.facts')),
    'sum.sample.sites.facts',
  );
  const direct = instrumentModule(new Uint8Array(readFileSync(kernel)), kernel, ['sample']);
  expect(JSON.stringify({ ...joined, instrumented: undefined })).toBe(JSON.stringify(direct.sites));
  const run = await cli(['run', output, '--args', '4', '--json']);
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout).result).toBe(2);
});

test('a module instrumented in a worker thread (a large one) gets the same module, table and facts', async () => {
  const dir = tempDir('taintlens-cli-');
  const kernel = join(dir, 'copy.wasm');
  writeFileSync(
    kernel,
    wat(`(module (memory 1)
  (func $run (export "run") (param $n i32) (result i32) (local $i i32)
    (loop $l
      (i32.store (i32.shl (local.get $i) (i32.const 2)) (i32.load (i32.shl (local.get $i) (i32.const 3))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (i32.load (i32.const 4))))`),
  );
  const written = async (name: string, isolateBytes: string) => {
    const previous = process.env.TAINTLENS_ISOLATE_BYTES;
    process.env.TAINTLENS_ISOLATE_BYTES = isolateBytes;
    try {
      const output = join(dir, `${name}.wasm`);
      expect((await cli(['instrument', kernel, '--mode', 'sample', '-o', output])).code).toBe(0);
      const table = JSON.parse(readFileSync(join(dir, `${name}.sites.json`), 'utf8'));
      delete table.instrumented;
      return { module: readFileSync(output), table, facts: readFileSync(join(dir, `${name}.sites.facts`)) };
    } finally {
      if (previous === undefined) delete process.env.TAINTLENS_ISOLATE_BYTES;
      else process.env.TAINTLENS_ISOLATE_BYTES = previous;
    }
  };
  const here = await written('here', String(1 << 30));
  const threaded = await written('threaded', '0');
  expect(threaded.module.equals(here.module)).toBe(true);
  expect(threaded.table).toEqual(here.table);
  expect(threaded.facts.equals(here.facts)).toBe(true);
});
