// The taint report with source lines: text columns, JSON fields, Perf-Taint's file/line and
// Score-P file filters, from a clang -g build (DWARF 5) and from an AssemblyScript source map.
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

test('taint on a -g build: loops and functions at their lines in text, JSON, Perf-Taint JSON and the Score-P filter', async () => {
  const dir = tempDir('taintlens-src-');
  const kernel = 'native/wasm/debug/taint_examples.wasm';
  const args = [
    'taint',
    kernel,
    '--invoke',
    'matmul_small',
    '--args',
    '3,4,5',
    '--param',
    'm=arg0',
    '--param',
    'n=arg1',
    '--param',
    'k=arg2',
  ];
  const text = await cli(args);
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/^matmul_small +taint_examples\.c:88 +m\*n\*k/m);
  expect(text.stdout).toMatch(/^L\d+ +taint_examples\.c:96 +matmul_small +L\d+ +k /m);
  const out = await cli([
    ...args,
    '--json',
    '--perf-taint-json',
    join(dir, 'pt.json'),
    '--scorep-filter',
    join(dir, 'filter.txt'),
  ]);
  const report = JSON.parse(out.stdout);
  expect(report.sources.origin).toBe('dwarf');
  expect(
    report.loops
      .filter((l: { function: string }) => l.function === 'matmul_small')
      .map((l: { source: string }) => l.source),
  ).toEqual(['native/src/taint_examples.c:93', 'native/src/taint_examples.c:94', 'native/src/taint_examples.c:96']);
  const pt = JSON.parse(readFileSync(join(dir, 'pt.json'), 'utf8'));
  expect(pt.functions.matmul_small).toMatchObject({ file: 'native/src/taint_examples.c', line: 88 });
  const filter = readFileSync(join(dir, 'filter.txt'), 'utf8');
  expect(filter).toMatch(
    /SCOREP_FILE_NAMES_BEGIN\n {2}EXCLUDE \*\n {2}INCLUDE \*\/native\/src\/taint_examples\.c\nSCOREP_FILE_NAMES_END/,
  );
});

test('taint on an AssemblyScript kernel reads the source map; without debug info it says how to get lines', async () => {
  const as = await cli(['taint', 'build/kernels/matmul.wasm', '--args', '6', '--json']);
  const report = JSON.parse(as.stdout);
  expect(report.sources.origin).toBe('source-map');
  const multiply = report.loops.filter((l: { function: string }) => l.function.endsWith('/multiply'));
  expect(multiply.map((l: { source: string }) => l.source)).toEqual([
    'assembly/kernels/matmul.ts:19',
    'assembly/kernels/matmul.ts:20',
    'assembly/kernels/matmul.ts:22',
  ]);
  const plain = await cli(['taint', 'native/wasm/matmul.wasm', '--args', '6']);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toMatch(/no source locations: build C\/C\+\+ with -g .* --sourceMap/);
});
