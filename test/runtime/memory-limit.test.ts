// The documented default memory limit: a program's declared maximum, else 1 GiB. Uninstrumented,
// a memory.grow past it fails (-1) as a declared maximum would; instrumented, the run stops with
// one line saying which limit it hit and how to raise it.
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wat } from '../helpers/wat.js';
import { cli } from '../helpers/cli.js';
import { capMemoryOrDefault } from '../../src/runtime/memory-cap.js';
import { readMemoryLimits } from '../../instrument/binary-patch.js';

const dir = mkdtempSync(join(tmpdir(), 'taintlens-memory-limit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Grows by 1 GiB + 64 KiB in one step: past the default, without touching the pages.
const module = (memory: string) => {
  const file = join(dir, `grows-${memory.replace(/\W+/g, '_')}.wasm`);
  writeFileSync(
    file,
    wat(`(module (memory (export "memory") ${memory})
    (func (export "run") (result i32) (memory.grow (i32.const 16385))))`),
  );
  return file;
};

test('without --memory-limit a memory with no declared maximum is capped at 1 GiB; a declared maximum is kept', () => {
  const unbounded = wat('(module (memory 1))');
  expect(readMemoryLimits(capMemoryOrDefault(unbounded, 'u.wasm', undefined))).toMatchObject({
    initialPages: 1,
    maxPages: 16384,
  });
  const declared = wat('(module (memory 1 40000))');
  expect(readMemoryLimits(capMemoryOrDefault(declared, 'd.wasm', undefined))).toMatchObject({
    initialPages: 1,
    maxPages: 40000,
  });
  expect(readMemoryLimits(capMemoryOrDefault(unbounded, 'u.wasm', 32))).toMatchObject({ maxPages: 32 });
});

test("run: a grow past the default 1 GiB fails as the program's own maximum would", async () => {
  const { code, stdout } = await cli(['run', module('1'), '--json']);
  expect(code).toBe(0);
  expect(JSON.parse(stdout).result).toBe(-1);
});

test('loops: a grow past the default 1 GiB stops the run with one line naming the limit', async () => {
  const file = module('1');
  const { code, stdout, stderr } = await cli(['loops', file]);
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr.trim().split('\n')).toEqual([
    `taintlens: ${file}: the program grew its memory past its limit (--memory-limit MiB; default: its declared maximum, else 1024 MiB) or past what the instrumentation leaves it: run it on a smaller input, or raise --memory-limit where there is room`,
  ]);
});
