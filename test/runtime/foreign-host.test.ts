// Modules built for another host (Go's js/wasm, Emscripten's JavaScript runtime, WASI preview 0, a
// reactor that imports its own loader's functions) get one line naming that host and what to do
// instead, in every command, before any instrumentation. Small WAT modules shaped like each.
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { wat } from '../helpers/wat.js';

const scratch = mkdtempSync(join(tmpdir(), 'taintlens-foreign-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function module(name: string, text: string): string {
  const file = join(scratch, `${name}.wasm`);
  writeFileSync(file, wat(text));
  return file;
}

/** Go 1.21+ js/wasm: imports from `gojs`, exports run/resume/getsp and `mem`. */
const go = module(
  'go-js',
  `(module
  (import "gojs" "runtime.wasmExit" (func (param i32)))
  (import "gojs" "syscall/js.valueGet" (func (param i32)))
  (memory (export "mem") 1)
  (func (export "run") (param i32 i32))
  (func (export "resume"))
  (func (export "getsp") (result i32) (i32.const 0)))`,
);

/** Emscripten (default, non-standalone): WASI for fd_write plus emscripten's own env imports. */
const emscripten = module(
  'emscripten',
  `(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "env" "emscripten_memcpy_big" (func (param i32 i32 i32)))
  (import "env" "__syscall_openat" (func (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "main") (result i32) (i32.const 0)))`,
);

/** A reactor (no _start) that needs its package's JavaScript loader, as ruby.wasm does. */
const reactor = module(
  'reactor',
  `(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "rb-js-abi-host" "eval-js" (func (param i32 i32)))
  (import "rb-js-abi-host" "js-value-typeof" (func (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_initialize"))
  (func (export "rb-abi-guest#ruby-init")))`,
);

const preview0 = module(
  'preview0',
  `(module
  (import "wasi_unstable" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))`,
);

test.each([
  [
    'Go js/wasm',
    go,
    'built by Go for its js/wasm host (imports gojs.runtime.wasmExit and 1 more), which runs it from wasm_exec.js: Taintlens runs WASI modules; rebuild it with GOOS=wasip1 GOARCH=wasm (Go 1.21 or later)',
  ],
  [
    'Emscripten',
    emscripten,
    'built by Emscripten for its JavaScript runtime (imports env.emscripten_memcpy_big and 1 more): rebuild it as a standalone WASI module (emcc -sSTANDALONE_WASM, or clang --target=wasm32-wasi)',
  ],
  [
    'a reactor with its own host',
    reactor,
    "a WASI reactor that needs its own host: it imports 2 function(s) from 'rb-js-abi-host' (e.g. rb-js-abi-host.eval-js and 1 more), which only the JavaScript loader it ships with supplies; run it there, or build a WASI command (with _start) of the program",
  ],
  [
    'WASI preview 0',
    preview0,
    "built for WASI preview 0 (imports wasi_unstable.fd_write): Taintlens's host speaks wasi_snapshot_preview1; rebuild it with a current WASI SDK",
  ],
])('%s: one line naming the host and what to do instead', async (_kind, file, message) => {
  for (const command of ['run', 'loops']) {
    const result = await cli([command, file]);
    expect(result).toMatchObject({ code: 1, stderr: `taintlens: ${file}: ${message}\n` });
  }
});
