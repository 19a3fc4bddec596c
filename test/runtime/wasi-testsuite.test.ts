// The WebAssembly wasi-testsuite's prebuilt preview1 tests (a subset, test/runtime/fixtures/wasi-testsuite)
// under Taintlens's WASI host: each test's exit code and output as its .json spec expects. Also: the
// host implements every function node:wasi does, and a call it lacks ends the run with one line.
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WASI } from 'node:wasi';
import { listTests, readSpec, runUnderTaintlens } from '../../bench/wasi-testsuite.js';
import { WasiHost } from '../../src/runtime/wasi.js';
import { cli } from '../helpers/cli.js';
import { wat } from '../helpers/wat.js';

const cases = listTests('test/runtime/fixtures/wasi-testsuite').map(
  (wasm) => [wasm.split('/tests/')[1]!, wasm] as const,
);
const scratch = mkdtempSync(join(tmpdir(), 'taintlens-wasi-calls-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('wasi-testsuite (preview1 subset)', () => {
  test('the subset is there', () => {
    expect(cases.length).toBe(17);
  });
  test.each(cases)('%s', async (_name, wasm) => {
    const spec = readSpec(wasm);
    const outcome = await runUnderTaintlens(wasm, spec);
    expect(outcome.failure).toBeUndefined();
    expect(outcome.exitCode).toBe(spec.exitCode);
    if (spec.stdout !== null) expect(outcome.stdout).toBe(spec.stdout);
  });
});

test('the host implements every wasi_snapshot_preview1 function node:wasi does', () => {
  const node = Object.keys(new WASI({ version: 'preview1' }).wasiImport).sort();
  expect(node.length).toBeGreaterThan(40);
  expect(node.filter((name) => !WasiHost.implemented().includes(name))).toEqual([]);
});

test('a WASI call the host does not implement ends the run with one line naming it', async () => {
  const module = join(scratch, 'unknown-call.wasm');
  writeFileSync(
    module,
    wat(`(module
    (import "wasi_snapshot_preview1" "fd_frobnicate" (func $f (param i32) (result i32)))
    (memory (export "memory") 1)
    (func (export "_start") (drop (call $f (i32.const 1)))))`),
  );
  const { code, stderr } = await cli(['run', module]);
  expect(code).toBe(1);
  expect(stderr).toBe(
    `taintlens: ${module}: called wasi_snapshot_preview1.fd_frobnicate, which Taintlens's WASI host does not implement (it printed nothing)\n`,
  );
});

test('proc_raise ends the run with one line naming the signal', async () => {
  const module = join(scratch, 'raise.wasm');
  writeFileSync(
    module,
    wat(`(module
    (import "wasi_snapshot_preview1" "proc_raise" (func $raise (param i32) (result i32)))
    (memory (export "memory") 1)
    (func (export "_start") (drop (call $raise (i32.const 6)))))`),
  );
  const { code, stderr } = await cli(['run', module]);
  expect(code).toBe(1);
  expect(stderr).toBe(`taintlens: ${module}: the program raised signal 6 (proc_raise) (it printed nothing)\n`);
});
