// `taintlens loops` and `taintlens run` from the command line: the JSON contract and the tables.
import { expect, test } from 'vitest';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-cli-');
const kernel = join(dir, 'nest.wasm');
writeFileSync(
  kernel,
  wat(`(module
  (func $row (param $n i32) (result i64) (local $j i32) (local $s i64)
    (loop $l
      (local.set $s (i64.add (local.get $s) (i64.extend_i32_u (local.get $j))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $j) (local.get $n))))
    (local.get $s))
  (func $run (export "run") (param $n i32) (result i64) (local $i i32) (local $t i64)
    (loop $l
      (local.set $t (i64.add (local.get $t) (call $row (local.get $n))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $t)))`),
);

test('loops --json follows the documented contract', async () => {
  const { code, stdout } = await cli(['loops', kernel, '--args', '20', '--repeat', '2', '--json']);
  expect(code).toBe(0);
  const report = JSON.parse(stdout);
  expect(report.schema).toBe('taintlens/loops@1');
  expect(report.result).toBe(String(20 * 190));
  expect(report.timing).toMatchObject({ runs: 2 });
  expect(report.timing.medianMs).toBeGreaterThanOrEqual(0);
  for (const loop of report.loops) {
    expect(Object.keys(loop)).toEqual(
      expect.arrayContaining([
        'id',
        'function',
        'parent',
        'depth',
        'entries',
        'iterations',
        'instructions',
        'inclusiveInstructions',
      ]),
    );
  }
  const inner = report.loops.find((l: { function: string }) => l.function === 'row');
  expect(inner).toMatchObject({ depth: 2, entries: 20, iterations: 400 });
  expect(report.functions.map((f: { name: string }) => f.name).sort()).toEqual(['row', 'run']);
  for (const fn of report.functions)
    expect(Object.keys(fn)).toEqual(['name', 'calls', 'instructions', 'inclusiveInstructions']);
});

test('loops prints the loop tree and, with --compare, both profiles', async () => {
  const { code, stdout } = await cli(['loops', kernel, '--args', '10', '--compare']);
  expect(code).toBe(0);
  expect(stdout).toMatch(/loop\s+function\s+called from\s+entries\s+iterations/);
  expect(stdout).toMatch(/\n {2}L0\s+row\s+run:C0\s+10\s+100\s/);
  expect(stdout).toMatch(/ids: L = static loop, C = call site/);
  expect(stdout).toMatch(/function-level vs loop-level/);
  expect(stdout).toMatch(/row\s+function\s+10\s/);
});

test('loops -o writes the JSON profile atomically', async () => {
  const out = join(dir, 'profile.json');
  const { code } = await cli(['loops', kernel, '--args', '5', '-o', out]);
  expect(code).toBe(0);
  expect(JSON.parse(readFileSync(out, 'utf8')).loops).toHaveLength(2);
});

test('run --json reports the result and the timing of the export alone', async () => {
  const { code, stdout } = await cli(['run', kernel, '--args', '7', '--repeat', '3', '--json']);
  expect(code).toBe(0);
  const doc = JSON.parse(stdout);
  expect(doc).toMatchObject({ schema: 'taintlens/run@1', result: String(7 * 21), timing: { runs: 3 } });
});

test('instrument writes the module and its site table', async () => {
  const output = join(dir, 'nest.loops.wasm');
  const { code, stdout } = await cli(['instrument', kernel, '--mode', 'loops', '-o', output]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/2 loops/);
  expect(WebAssembly.validate(readFileSync(output))).toBe(true);
  const sites = JSON.parse(readFileSync(join(dir, 'nest.loops.sites.json'), 'utf8'));
  expect(sites.schema).toBe('taintlens/sites@1');
  expect(sites.loops.map((l: { function: string; depth: number }) => [l.function, l.depth])).toEqual([
    ['row', 1],
    ['run', 1],
  ]);
  expect(existsSync(output)).toBe(true);
});

// `sum` is called from two call sites of `run`, with different trip counts: the same loop in two
// contexts whose function names are the same.
const twice = join(dir, 'twice.wasm');
writeFileSync(
  twice,
  wat(`(module
  (func $sum (param $n i32) (result i32) (local $j i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (local.get $j)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $j) (local.get $n))))
    (local.get $s))
  (func $big (param $n i32) (result i32) (local $i i32) (local $t i32)
    (loop $l
      (local.set $t (i32.add (local.get $t) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $t))
  (func $run (export "run") (param $n i32) (result i32)
    (i32.add
      (i32.add (call $sum (i32.const 3)) (call $big (local.get $n)))
      (call $sum (i32.mul (local.get $n) (i32.const 10))))))`),
);

test('loops tells contexts apart by call site, sorts by cost, and --top keeps the costliest', async () => {
  const { code, stdout } = await cli(['loops', twice, '--args', '50']);
  expect(code).toBe(0);
  const rows = stdout.split('\n').filter((line) => /^\s*L\d/.test(line));
  // Costliest first: sum from its second call site (500 iterations), big (50), sum from the first (3).
  expect(rows.map((row) => row.trim().split(/\s+/).slice(0, 4))).toEqual([
    ['L0', 'sum', 'run:C2', '1'],
    ['L1', 'big', 'run:C1', '1'],
    ['L0', 'sum', 'run:C0', '1'],
  ]);
  const json = JSON.parse((await cli(['loops', twice, '--args', '50', '--json'])).stdout);
  expect(json.loops.map((l: { callsites: string[] }) => l.callsites).sort()).toEqual([['C0'], ['C1'], ['C2']]);
  const top = await cli(['loops', twice, '--args', '50', '--top', '1']);
  expect(top.stdout.split('\n').filter((line) => /^\s*L\d/.test(line))).toHaveLength(1);
  expect(top.stdout).toMatch(/\(1 of 3 loop contexts/);
  expect((await cli(['loops', twice, '--args', '50', '--top', 'x'])).code).toBe(2);
});

test('the loop table fits 100 columns unless --wide', async () => {
  const { stdout } = await cli(['loops', 'native/wasm/miniapp_cmd.wasm', '--all', '--', '16', '10', '4', '2', '3']);
  const table = stdout.slice(0, stdout.indexOf('\n\n')).split('\n');
  expect(table.length).toBeGreaterThan(40);
  expect(Math.max(...table.map((line) => line.length))).toBeLessThanOrEqual(100);
  expect(stdout).toMatch(/… > run:C\d+/);
  const wide = await cli(['loops', 'native/wasm/miniapp_cmd.wasm', '--all', '--wide', '--', '16', '10', '4', '2', '3']);
  expect(wide.stdout).toMatch(/_start:C\d+ > .* > run:C\d+/);
  expect(Math.max(...wide.stdout.split('\n').map((line) => line.length))).toBeGreaterThan(100);
});

test("library loops (printf's) are folded into their callers unless --all; -g builds show source lines", async () => {
  const args = ['--', '16', '2', '2', '1', '1'];
  const program = await cli(['loops', 'native/wasm/miniapp_cmd.wasm', ...args]);
  const rows = (text: string) => text.split('\n').filter((line) => /^\s*L\d/.test(line));
  expect(program.code).toBe(0);
  expect(program.stdout).not.toMatch(/printf_core|memcpy|fwrite/);
  expect(rows(program.stdout)).toHaveLength(14);
  expect(program.stdout).toMatch(
    /\(30 loop context\(s\) of library code folded into their callers' inclusive cost; --all lists them\)/,
  );
  expect(program.stdout).toMatch(/no source locations: build C\/C\+\+ with -g/);
  const all = await cli(['loops', 'native/wasm/miniapp_cmd.wasm', '--all', ...args]);
  expect(rows(all.stdout)).toHaveLength(44);
  expect(all.stdout).toMatch(/printf_core/);
  const debug = await cli(['loops', 'native/wasm/debug/miniapp_cmd.wasm', ...args]);
  expect(rows(debug.stdout)).toHaveLength(14);
  expect(debug.stdout).toMatch(/^ {4}L4 +miniapp\.c:68 +compute_forces/m);
  const json = JSON.parse((await cli(['loops', 'native/wasm/debug/miniapp_cmd.wasm', '--json', ...args])).stdout);
  expect(json.sources.origin).toBe('dwarf');
  expect(json.libraryFunctions).toContain('printf_core');
  expect(json.loops.find((l: { function: string }) => l.function === 'compute_forces').source).toBe(
    'native/src/miniapp.c:67',
  );
});

test('"called from": a call site inlined from another file keeps its file; a line of the caller\'s own file is bare', async () => {
  // The mini-app's annotation helper param() (assembly/taintlens.ts) is inlined into run
  // (assembly/kernels/miniapp.ts): its call to encodeName is at a line of taintlens.ts, not of run's file.
  const { stdout } = await cli(['loops', 'build/kernels/miniapp.wasm', '--args', '6,1,2,2,1', '--wide']);
  expect(stdout).toMatch(/encodeName +run:\S*taintlens\.ts:\d+ /);
  expect(stdout).toMatch(/computeForces +run:\d+ /);
});
