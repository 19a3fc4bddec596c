// The WASI host with a real C program (native/src/textstat.c, built by native/build.sh): a file read
// through a preopened directory, stdin from a file, the environment, and the program's output in
// every command (text and JSON), identical under run, loops and taint.
import { describe, expect, test } from 'vitest';
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { wat } from '../helpers/wat.js';
import { tempDir } from '../helpers/temp.js';

const textstat = 'native/wasm/textstat.wasm';
const host = ['--dir', 'native/data:data', '--stdin', 'native/data/input.txt'];
const argv = ['--', '3', 'data/poem.txt'];
const expected = [
  'data/poem.txt: 4 lines, 21 words, 119 bytes',
  'stdin: 2 lines, 5 words, 24 bytes',
  'hash after 3 rounds: f57723e7',
  '',
].join('\n');

describe.each(['run', 'loops', 'taint'])('taintlens %s of textstat', (command) => {
  test('reads the file through --dir and stdin through --stdin, with identical output', async () => {
    const human = await cli([command, textstat, ...host, ...argv]);
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout.startsWith(expected)).toBe(true);
    const json = await cli([command, textstat, ...host, '--json', ...argv]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).stdout).toBe(expected);
  });
});

test('without the preopen the program cannot open its file, and its exit code is passed on', async () => {
  const { code, stderr } = await cli(['run', textstat, ...argv]);
  expect(code).toBe(3);
  expect(stderr).toContain("| textstat: cannot open 'data/poem.txt'");
});

test('a path that climbs out of the preopen is refused', async () => {
  const { code, stderr } = await cli([
    'run',
    textstat,
    '--dir',
    'native/data:data',
    '--',
    '1',
    'data/../src/textstat.c',
  ]);
  expect(code).toBe(3);
  expect(stderr).toContain('cannot open');
});

test('bad --dir, --stdin and --env are one clear line', async () => {
  expect(await cli(['run', textstat, '--dir', 'no/such/dir', ...argv])).toMatchObject({
    code: 1,
    stderr: 'taintlens: no/such/dir: no such directory (--dir)\n',
  });
  expect(await cli(['run', textstat, '--stdin', 'no-such-file', ...argv])).toMatchObject({
    code: 1,
    stderr: 'taintlens: no-such-file: no such file (--stdin)\n',
  });
  expect(await cli(['run', textstat, '--env', 'novalue', ...argv])).toMatchObject({
    code: 2,
    stderr: "taintlens: --env 'novalue': expected NAME=VALUE\n",
  });
});

/** A WASI command that copies in.txt of its preopen to out.txt (write access needed). */
const copier = wat(`(module
  (import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "in.txt")
  (data (i32.const 110) "out.txt")
  (func (export "_start") (local $errno i32)
    ;; open in.txt read-only as fd [0], out.txt created and truncated as fd [4]
    (local.set $errno (call $open (i32.const 3) (i32.const 0) (i32.const 100) (i32.const 6) (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 0)))
    (if (local.get $errno) (then (call $exit (i32.const 10))))
    (local.set $errno (call $open (i32.const 3) (i32.const 0) (i32.const 110) (i32.const 7) (i32.const 9) (i64.const 64) (i64.const 0) (i32.const 0) (i32.const 4)))
    (if (local.get $errno) (then (call $exit (i32.add (i32.const 20) (local.get $errno)))))
    ;; one iovec at 16: buffer 1024, 256 bytes; read count at 8
    (i32.store (i32.const 16) (i32.const 1024))
    (i32.store (i32.const 20) (i32.const 256))
    (drop (call $read (i32.load (i32.const 0)) (i32.const 16) (i32.const 1) (i32.const 8)))
    (i32.store (i32.const 20) (i32.load (i32.const 8)))
    (drop (call $write (i32.load (i32.const 4)) (i32.const 16) (i32.const 1) (i32.const 12)))))`);

test('--dir is read-only (the program sees EROFS) and --dir-rw lets it write', async () => {
  const dir = tempDir('taintlens-wasi-');
  writeFileSync(join(dir, 'in.txt'), 'copied through WASI\n');
  const module = join(dir, 'copier.wasm');
  writeFileSync(module, copier);
  const readOnly = await cli(['run', module, '--dir', `${dir}:.`]);
  expect(readOnly.code).toBe(20 + 69);
  expect(existsSync(join(dir, 'out.txt'))).toBe(false);
  const writable = await cli(['run', module, '--dir-rw', `${dir}:.`]);
  expect(writable).toMatchObject({ code: 0, stderr: '' });
  expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('copied through WASI\n');
});
