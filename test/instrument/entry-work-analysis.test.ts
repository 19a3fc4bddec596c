// The entry-work mode alone counts with its own light walk (instrument/entry-work-analysis.ts); its
// counters must be the ones the full site analysis gives (sites.ts, then countedFunctions): same
// names, instruction counts and own instructions per loop, with the loop nesting of the CFG's
// natural loops. Checked on the native kernels (clang -O2 and -O0 shapes, the fuzz corpus's
// generated control flow) and on a module with a tail call, which takes the full pipeline.
import { test, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readModule } from '../../instrument/module-io.js';
import { analyzeModule } from '../../instrument/sites.js';
import { analyzeEntryWork } from '../../instrument/entry-work-analysis.js';
import { countedFunctions } from '../../instrument/passes/entry-work.js';
import { instrumentModule } from '../../instrument/pipeline.js';
import { wat } from '../helpers/wat.js';

const T = { timeout: 120_000 };

const modules = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.wasm'))
    .sort()
    .map((f) => join(dir, f));

const countsOf = (list: ReturnType<typeof countedFunctions>) =>
  list.map((f) => ({ index: f.index, name: f.name, instructions: f.instructions, loops: f.loopExprs, own: f.own }));

test('the light analysis counts what the site analysis counts', T, () => {
  // Every native kernel, and half the fuzz corpus (the test's time is mostly the full analysis).
  const files = [...modules('native/wasm'), ...modules('test/fuzz/corpus').filter((_, i) => i % 2 === 0)];
  expect(files.length).toBeGreaterThan(80);
  let nested = 0;
  for (const file of files) {
    const module = readModule(new Uint8Array(readFileSync(file)), file);
    try {
      const full = countedFunctions(analyzeModule(module));
      const light = analyzeEntryWork(module);
      expect(light, file).not.toBeNull();
      expect(countsOf(light!.functions), file).toEqual(countsOf(full));
      nested += full.filter((f) => f.loopExprs.length > 1).length;
    } finally {
      module.dispose();
    }
  }
  // The nesting rule ran: many functions with two loops or more.
  expect(nested).toBeGreaterThan(50);
});

test('entry-work alone lists the functions, and a module with a tail call takes the full pipeline', () => {
  const plain = instrumentModule(
    wat(`(module (memory 1) (func $f (loop $l (br_if $l (i32.const 0)))) (func (export "run") (call $f)))`),
    'plain.wasm',
    ['entry-work'],
  );
  expect(plain.sites.analysed).toBe('functions');
  expect(plain.sites.functions.map((f) => [f.name, f.instructions])).toEqual([
    ['f', 3],
    ['run', 1],
  ]);
  const tail = instrumentModule(
    wat(`(module (memory 1) (func $f (result i32) (i32.const 1)) (func (export "run") (result i32) (return_call $f)))`),
    'tail.wasm',
    ['entry-work'],
  );
  expect(tail.sites.analysed).toBeUndefined();
  expect(tail.sites.tailCalls).toBe(1);
});
