// `taint --instrumented-functions FILE` writes the functions the analysed run had instrumented, and
// `instrument --mode taint --functions FILE` rebuilds that very module without the runs.
import { expect, test } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { instrumentModule } from '../../instrument/pipeline.js';

// run(n) calls `looped` only when n > 5; `never` is called by nothing.
const KERNEL = wat(`(module (memory (export "memory") 1)
  (func $looped (param $n i32) (result i32) (local $i i32)
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_s (local.get $i) (local.get $n))))
    (local.get $i))
  (func $never (export "never") (param $n i32) (result i32) (i32.mul (local.get $n) (i32.const 3)))
  (func (export "run") (param $n i32) (result i32)
    (if (result i32) (i32.gt_s (local.get $n) (i32.const 5))
      (then (call $looped (local.get $n)))
      (else (local.get $n)))))`);

test(
  'the written list is the run-entered functions, and instrument --functions reads it',
  { timeout: 60_000 },
  async () => {
    const dir = tempDir('taintlens-cli-');
    const kernel = join(dir, 'entered.wasm');
    writeFileSync(kernel, KERNEL);
    const listed = async (n: string, coverage: string) => {
      const list = join(dir, `functions-${n}-${coverage}.txt`);
      const args = ['taint', kernel, '--invoke', 'run', '--args', n, '--param', 'n=arg0', '--coverage', coverage];
      const { code, stderr } = await cli([...args, '--instrumented-functions', list, '--json']);
      expect(code, stderr).toBe(0);
      return { list, names: readFileSync(list, 'utf8') };
    };
    expect((await listed('3', 'on')).names).toBe('run\n');
    const entered = await listed('9', 'on');
    expect(entered.names).toBe('looped\nrun\n');
    // At n = 5000, run's few instructions are far under 2% of the work: instrumented as cold.
    const marked = await listed('5000', 'on');
    expect(marked.names).toBe('looped\nrun\tcold\n');
    expect((await listed('3', 'off')).names).toBe('looped\nnever\nrun\n');
    const output = join(dir, 'entered.taint.wasm');
    const { code } = await cli(['instrument', kernel, '--mode', 'taint', '--functions', entered.list, '-o', output]);
    expect(code).toBe(0);
    const direct = instrumentModule(KERNEL, kernel, ['taint'], { taint: { functions: ['looped', 'run'] } });
    expect(readFileSync(output).equals(Buffer.from(direct.bytes))).toBe(true);
    const markedOutput = join(dir, 'marked.taint.wasm');
    expect(
      (await cli(['instrument', kernel, '--mode', 'taint', '--functions', marked.list, '-o', markedOutput])).code,
    ).toBe(0);
    const cold = instrumentModule(KERNEL, kernel, ['taint'], {
      taint: { functions: ['looped', 'run'], cold: ['run'] },
    });
    expect(readFileSync(markedOutput).equals(Buffer.from(cold.bytes))).toBe(true);
    const all = instrumentModule(KERNEL, kernel, ['taint']);
    expect(readFileSync(output).equals(Buffer.from(all.bytes))).toBe(false);
  },
);

test('a list naming no function of the module is one error line naming the list', async () => {
  const dir = tempDir('taintlens-cli-');
  const kernel = join(dir, 'entered.wasm');
  writeFileSync(kernel, KERNEL);
  const list = join(dir, 'list.txt');
  writeFileSync(list, 'run\nnosuch\tcold\n');
  const output = join(dir, 'out.wasm');
  const { code, stderr } = await cli(['instrument', kernel, '--mode', 'taint', '--functions', list, '-o', output]);
  expect(code).not.toBe(0);
  expect(stderr).toContain(list);
  expect(stderr).toContain('1 name(s) are not functions of');
  expect(stderr).toContain('nosuch');
  expect(existsSync(output)).toBe(false);
});
