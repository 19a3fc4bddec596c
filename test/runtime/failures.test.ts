// Failures are never data: a WASI command that exits non-zero fails every command that runs it
// (with its exit code and its own stderr), an instrumented module is not taken for the original,
// and an output path that is a directory is refused before any work.
import { describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taintlens-failures-');
const file = (name: string, bytes: Uint8Array | string) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

/** A WASI command that writes `message` to stderr and exits with `code`. */
const command = (message: string, code: number) =>
  wat(`(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "${[...Buffer.from(message)].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('')}")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const ${Buffer.byteLength(message)}))
    (drop (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.const ${code}))))`);

const failing = file('failing.wasm', command('usage: failing N\nsee --help\n', 3));
const quiet = file('quiet.wasm', command('', 4));
const warns = file('warns.wasm', command('warning: nothing to do\n', 0));

describe.each(['run', 'loops', 'taint'])('taintlens %s of a WASI command', (name) => {
  test('a non-zero exit is an error that passes the exit code on, with the guest stderr', async () => {
    const { code, stdout, stderr } = await cli([name, failing]);
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr.split('\n')).toEqual([
      expect.stringMatching(/^taintlens: .*failing\.wasm: the program exited with code 3; its stderr:$/),
      '  | usage: failing N',
      '  | see --help',
      '',
    ]);
  });

  test('a non-zero exit without output says so', async () => {
    const { code, stderr } = await cli([name, quiet]);
    expect(code).toBe(4);
    expect(stderr).toMatch(/quiet\.wasm: the program exited with code 4 \(it printed nothing\)\n$/);
  });

  test('exit 0 stays success', async () => {
    const { code, stderr } = await cli([name, warns, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

test("run passes a successful program's stderr on (in the document with --json)", async () => {
  const human = await cli(['run', warns]);
  expect(human.code).toBe(0);
  expect(human.stderr).toBe('warning: nothing to do\n');
  expect(human.stdout).toMatch(/^exit code: 0\n/);
  const json = await cli(['run', warns, '--json']);
  expect(json.stderr).toBe('');
  expect(JSON.parse(json.stdout)).toMatchObject({ result: 0, stderr: 'warning: nothing to do\n' });
});

test("the README's miniapp with bad argv fails with its usage line", async () => {
  const { code, stdout, stderr } = await cli(['run', 'native/wasm/miniapp_cmd.wasm', '--', 'x']);
  expect(code).toBe(2);
  expect(stdout).toBe('');
  expect(stderr).toMatch(
    /miniapp_cmd\.wasm: the program exited with code 2; its stderr:\n {2}\| usage: \S+ SIZE ITERS REGIONS BALANCE COST\n$/,
  );
});

describe('a module written by taintlens instrument, given again', () => {
  const original = 'native/wasm/miniapp_cmd.wasm';
  const instrumented = join(dir, 'mini.loops.wasm');
  const argv = ['--', '3', '2', '2', '1', '1'];

  test('instrument, loops, taint and measure refuse it with one line', async () => {
    expect((await cli(['instrument', original, '--mode', 'loops', '-o', instrumented])).code).toBe(0);
    expect(existsSync(join(dir, 'mini.loops.sites.json'))).toBe(true);
    for (const args of [
      ['instrument', instrumented, '--mode', 'loops', '-o', join(dir, 'again.wasm')],
      ['loops', instrumented, ...argv],
      ['taint', instrumented, ...argv],
      ['measure', instrumented, '--vary', 'size=argv1:2,3', '-o', join(dir, 'again.jsonl'), ...argv],
    ]) {
      const { code, stderr } = await cli(args);
      expect(code, args[0]).toBe(1);
      expect(stderr).toBe(
        `taintlens: ${instrumented}: is already instrumented by Taintlens (it exports taintlens$out_of_room): give the original module\n`,
      );
    }
    expect(existsSync(join(dir, 'again.wasm'))).toBe(false);
    expect(existsSync(join(dir, 'again.jsonl'))).toBe(false);
  });

  test('run runs it as the original when its site table is beside it, and refuses without', async () => {
    const plain = await cli(['run', original, '--json', ...argv]);
    const again = await cli(['run', instrumented, '--json', ...argv]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).stdout).toBe(JSON.parse(plain.stdout).stdout);
    expect(JSON.parse(again.stdout).result).toBe(0);

    const alone = join(dir, 'alone.wasm');
    writeFileSync(alone, readBytes(instrumented));
    const refused = await cli(['run', alone, ...argv]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^taintlens: \S+alone\.wasm: was written by `taintlens instrument` .* its site table \S+alone\.sites\.json is not beside it/,
    );
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);

    // Another module's site table beside it is recognized as not its own.
    expect(
      (
        await cli([
          'instrument',
          'native/wasm/matmul.wasm',
          '--mode',
          'loops',
          '-o',
          join(dir, 'mm.wasm'),
          '--sites',
          join(dir, 'alone.sites.json'),
        ])
      ).code,
    ).toBe(0);
    const wrong = await cli(['run', alone, ...argv]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/alone\.sites\.json does not describe it/);
  });
});

describe('-o pointing at a directory', () => {
  const out = join(dir, 'a-directory');
  mkdirSync(out, { recursive: true });
  test.each([
    ['loops', ['loops', 'native/wasm/matmul.wasm', '--args', '4', '-o', out]],
    ['taint', ['taint', 'native/wasm/matmul.wasm', '--args', '4', '-o', out]],
    ['taint --scorep-filter', ['taint', 'native/wasm/matmul.wasm', '--args', '4', '--scorep-filter', out]],
    ['instrument', ['instrument', 'native/wasm/matmul.wasm', '--mode', 'loops', '-o', out]],
    ['measure', ['measure', 'native/wasm/matmul.wasm', '--vary', 'n=arg0:2,3', '-o', out]],
  ])('%s', async (_name, args) => {
    const { code, stdout, stderr } = await cli(args);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`taintlens: ${out}: is a directory: give a file name to write\n`);
    expect(readdirSync(out)).toEqual([]);
  });
});

function readBytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(path));
}
