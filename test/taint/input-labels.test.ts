// Parameters of unmodified WASI programs: --param NAME=argvK / env:VAR / file:PATH label the bytes
// the host writes (argv words, an environment value, what is read from a file), so that atoi and
// every computation after it carry the label to the loops they drive.
import { expect, test } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { wat } from '../helpers/wat.js';
import { tempDir } from '../helpers/temp.js';

const textstat = ['native/wasm/textstat.wasm', '--dir', 'native/data:data', '--stdin', 'native/data/input.txt'];
const argv = ['--', '3', 'data/poem.txt'];

interface Report {
  parameters: string[];
  stdout?: string;
  loops: Array<{ id: string; function: string; params: string[] }>;
  branches: Array<{ id: string; function: string; loop: string | null; params: string[] }>;
}

async function taint(args: string[]): Promise<Report> {
  const { code, stdout, stderr } = await cli(['taint', '--json', ...args]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Report;
}

test('argv1 of textstat (read with atoi) drives the rounds loop of hash_rounds, not the loop over the text', async () => {
  const report = await taint([...textstat, '--param', 'rounds=argv1', ...argv]);
  expect(report.parameters).toEqual(['rounds']);
  const hash = report.loops.filter((l) => l.function === 'hash_rounds');
  expect(hash.map((l) => l.params)).toEqual([['rounds'], []]);
  expect(report.stdout).toContain('hash after 3 rounds: f57723e7');
});

test('the bytes read from a file named by file:PATH carry its label (the word counting branches of main)', async () => {
  const report = await taint([...textstat, '--param', 'text=file:data/poem.txt', ...argv]);
  expect(report.branches.some((b) => b.function === 'main' && b.loop !== null && b.params.includes('text'))).toBe(true);
  expect(report.loops.filter((l) => l.function === 'hash_rounds').every((l) => l.params.length === 0)).toBe(true);
});

/** A WASI command that loops (first digit of its first environment value) times. */
const envLoop = wat(`(module
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $get (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global $sum (export "sum") (mut i32) (i32.const 0))
  (func (export "_start") (local $n i32) (local $i i32) (local $p i32)
    (drop (call $sizes (i32.const 0) (i32.const 4)))
    (drop (call $get (i32.const 16) (i32.const 256)))
    ;; the value starts after NAME=: scan to '='
    (local.set $p (i32.load (i32.const 16)))
    (block $found (loop $scan
      (br_if $found (i32.eq (i32.load8_u (local.get $p)) (i32.const 61)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $scan)))
    (local.set $n (i32.sub (i32.load8_u (i32.add (local.get $p) (i32.const 1))) (i32.const 48)))
    (block $done (loop $repeat
      (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
      (global.set $sum (i32.add (global.get $sum) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $repeat)))))`);

test('env:VAR labels the value of an environment variable (byte shadow: NAME= stays unlabelled)', async () => {
  const dir = tempDir('taintlens-inputs-');
  const module = join(dir, 'env-loop.wasm');
  writeFileSync(module, envLoop);
  const report = await taint([module, '--env', 'STEPS=7', '--param', 'steps=env:STEPS', '--shadow', 'byte']);
  const driven = report.loops.filter((l) => l.params.includes('steps'));
  expect(driven.length).toBe(1);
  expect(report.loops.length).toBe(2);
});

test('argv0 (the program name in C) is refused with one line naming argv1', async () => {
  const { code, stderr } = await cli(['taint', ...textstat, '--param', 'rounds=argv0', ...argv]);
  expect(code).toBe(2);
  expect(stderr).toBe(
    "taintlens: --param 'rounds=argv0': argv0 is the program's name; the first word after -- is argv1 (C's argv[1])\n",
  );
});

test('argvK past the words after -- is refused with one line', async () => {
  const { code, stderr } = await cli(['taint', ...textstat, '--param', 'rounds=argv5', ...argv]);
  expect(code).toBe(1);
  expect(stderr).toBe(
    'taintlens: native/wasm/textstat.wasm: --param rounds=argv5: the program gets 2 argument(s) after -- (argv1..argv2, as C numbers them)\n',
  );
});
