// Large modules are instrumented in a worker thread (src/runtime/isolated-instrument.ts): the result
// is the one instrumenting in the process gives, packed facts included, and a failure keeps its message.
import { expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { instrumentCached } from '../../instrument/cache.js';
import { PackedFunctionFacts } from '../../instrument/packed-facts.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';
import { instrumentIsolated } from '../../src/runtime/isolated-instrument.js';
import { UserError } from '../../src/util/errors.js';

const noCache = { minBytes: Number.POSITIVE_INFINITY };

test('a sample instrumentation in a worker thread gives the same module and table, its facts packed', async () => {
  const bytes = new Uint8Array(readFileSync('native/wasm/gemm.wasm'));
  const here = instrumentCached(bytes, 'g.wasm', ['sample'], {}, noCache);
  const isolated = await instrumentIsolated(bytes, 'g.wasm', ['sample'], {}, { ...noCache, isolateBytes: 0 });
  expect(isolated.cached).toBe(false);
  expect(Buffer.from(isolated.bytes).equals(Buffer.from(here.bytes))).toBe(true);
  const layout = isolated.sites.passes.sample as SampleLayout;
  expect(layout.functions[0]).toBeInstanceOf(PackedFunctionFacts);
  expect(JSON.stringify(isolated.sites)).toBe(JSON.stringify(here.sites));
});

test('a failure in the worker thread is the same user error', async () => {
  const bytes = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0xff);
  const failure = await instrumentIsolated(bytes, 'bad.wasm', ['loops'], {}, { ...noCache, isolateBytes: 0 }).catch(
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(UserError);
  expect((failure as UserError).message).toMatch(/^bad\.wasm: /);
  expect(() => instrumentCached(bytes, 'bad.wasm', ['loops'], {}, noCache)).toThrow((failure as Error).message);
});

test('the built CLI in a process started as `node --input-type=module -e …` (as bench:real starts it) instruments in a thread', () => {
  const cache = mkdtempSync(join(tmpdir(), 'taintlens-isolated-'));
  try {
    const main = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js')).href;
    const args = ['loops', 'build/kernels/matmul.wasm', '--args', '8', '--json'];
    const result = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(${JSON.stringify(args)});`,
      ],
      { encoding: 'utf8', env: { ...process.env, TAINTLENS_ISOLATE_BYTES: '0', TAINTLENS_CACHE: cache } },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty('loops');
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}, 60_000);
