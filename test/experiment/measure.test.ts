// `taintlens measure`: a grid campaign that writes Extra-P JSON Lines, resumes where it stopped,
// and feeds `taintlens model`.
import { expect, test } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { gridPoints, parseVary } from '../../src/experiment/grid.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-measure-');
const kernel = join(dir, 'square.wasm');
// work(n, m) runs an n*n loop nest; m only feeds arithmetic.
writeFileSync(
  kernel,
  wat(`(module
  (func $nest (param $n i32) (param $m i32) (result i32) (local $i i32) (local $j i32) (local $s i32)
    (block $done (loop $outer
      (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
      (local.set $j (i32.const 0))
      (block $inner_done (loop $inner
        (br_if $inner_done (i32.ge_s (local.get $j) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (i32.mul (local.get $j) (local.get $m))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $inner)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $outer)))
    (local.get $s))
  (func $run (export "run") (param $n i32) (param $m i32) (result i32) (call $nest (local.get $n) (local.get $m))))`),
);

test('--vary specs and the grid they span', () => {
  const n = parseVary('n=arg0:2,4,8');
  const p = parseVary('p=argv1:1,2');
  expect(n).toEqual({ name: 'n', target: { kind: 'arg', index: 0 }, values: [2, 4, 8] });
  // argvK as C numbers it: argv1 is the first word after --, argv0 (the program's name) is refused
  expect(p).toEqual({ name: 'p', target: { kind: 'argv', index: 0 }, values: [1, 2] });
  expect(() => parseVary('p=argv0:1,2')).toThrow(/argv0 is the program's name/);
  expect(gridPoints([n, p])).toHaveLength(6);
  expect(() => parseVary('n=0:1,2')).toThrow(/expected NAME=argK/);
});

test('a campaign writes exact instruction counts per call path and times per repetition', async () => {
  const output = join(dir, 'm.jsonl');
  const { code, stdout } = await cli([
    'measure',
    kernel,
    '--args',
    '0,3',
    '--vary',
    'n=arg0:4,8,16,32,64',
    '--repeat',
    '2',
    '-o',
    output,
  ]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/5 point\(s\) measured.*\(time: wall time of the call in ms\)/);
  // A tiny kernel: its runs are far too short to model time, and measure says so at once.
  expect(stdout).toMatch(/^warning: time of <root> \(the whole run\): the median run takes \S+ ms, under 10 ms/m);
  const lines = readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const nest = lines.filter((l) => l.callpath === 'run->nest' && l.metric === 'instructions');
  expect(nest.map((l) => l.params.n)).toEqual([4, 8, 16, 32, 64]);
  // The counts grow as n^2 plus lower terms: the second difference of the counts is constant.
  const v = nest.map((l) => l.value);
  const ratio = v[4] / v[3];
  expect(ratio).toBeGreaterThan(3.5);
  expect(ratio).toBeLessThan(4.1);
  expect(lines.filter((l) => l.metric === 'time')).toHaveLength(10);

  const { code: modelCode, stdout: models } = await cli(['model', output, '--metric', 'instructions', '--json']);
  expect(modelCode).toBe(0);
  const doc = JSON.parse(models);
  const model = doc.models.find((m: { callpath: string }) => m.callpath === 'run->nest');
  expect(model.model).toMatch(/n\^2/);
});

test('a stopped campaign resumes at the first missing point, cutting a torn last line', async () => {
  const output = join(dir, 'resume.jsonl');
  const run = () =>
    cli(['measure', kernel, '--args', '0,1', '--vary', 'n=arg0:2,3,4', '--metrics', 'instructions', '-o', output]);
  expect((await run()).stdout).toMatch(/3 point\(s\) measured, 0 already there/);
  const lines = readFileSync(output, 'utf8').trim().split('\n');
  const kept = lines.filter((l) => JSON.parse(l).params.n !== 4);
  writeFileSync(output, kept.join('\n') + '\n{"params":{"n":4},"callp');
  expect((await run()).stdout).toMatch(/1 point\(s\) measured, 2 already there/);
  const after = readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(after.filter((l) => l.params.n === 4).length).toBeGreaterThan(0);
});
