// Instrumented modules are cached by content (module, modes, options, instrumenter code): a second
// loops or taint of the same module reads the cache, and anything that changes the output misses it.
import { expect, test } from 'vitest';
import { readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instrumentCached } from '../../instrument/cache.js';
import { cacheMaxBytes, DEFAULT_CACHE_MAX_BYTES } from '../../instrument/cache-limit.js';
import { tempDir } from '../helpers/temp.js';
import { PackedFunctionFacts, PackedRegion } from '../../instrument/packed-facts.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';

test('the second instrumentation of the same module comes from the cache, identical', () => {
  const dir = tempDir('taintlens-cache-');
  const bytes = new Uint8Array(readFileSync('native/wasm/textstat.wasm'));
  const first = instrumentCached(bytes, 'a.wasm', ['loops'], {}, { dir, minBytes: 0 });
  const second = instrumentCached(bytes, 'b.wasm', ['loops'], {}, { dir, minBytes: 0 });
  expect(first.cached).toBe(false);
  expect(second.cached).toBe(true);
  expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true);
  expect(second.sites.module).toBe('b.wasm');
  expect({ ...second.sites, module: 'a.wasm' }).toEqual(JSON.parse(JSON.stringify(first.sites)));
  const bigger = instrumentCached(bytes, 'a.wasm', ['loops'], { contextBytes: 32 << 20 }, { dir, minBytes: 0 });
  expect(bigger.cached).toBe(false);
  expect(readdirSync(dir).filter((f) => f.endsWith('.wasm'))).toHaveLength(2);
});

test('a sample table is cached with its packed facts in a file of their own, read back packed and identical', () => {
  const dir = tempDir('taintlens-cache-');
  const bytes = new Uint8Array(readFileSync('native/wasm/gemm.wasm'));
  const first = instrumentCached(bytes, 'a.wasm', ['sample'], {}, { dir, minBytes: 0 });
  const second = instrumentCached(bytes, 'a.wasm', ['sample'], {}, { dir, minBytes: 0 });
  expect(second.cached).toBe(true);
  expect(readdirSync(dir).filter((f) => f.endsWith('.facts'))).toHaveLength(1);
  const table = JSON.parse(
    readFileSync(
      join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.sites.json'))!,
      ),
      'utf8',
    ),
  );
  expect(table.passes.sample.functions[0].facts).toBeUndefined(); // the facts are in the facts file
  const layout = second.sites.passes.sample as SampleLayout;
  expect(layout.functions.every((f) => f instanceof PackedFunctionFacts)).toBe(true);
  expect(layout.regions.every((r) => r instanceof PackedRegion)).toBe(true);
  expect(JSON.stringify(second.sites)).toBe(JSON.stringify(first.sites));
  // A facts file that does not match its table is a miss, instrumented again.
  const facts = readdirSync(dir).find((f) => f.endsWith('.facts'))!;
  writeFileSync(join(dir, facts), readFileSync(join(dir, facts)).subarray(0, 64));
  expect(instrumentCached(bytes, 'a.wasm', ['sample'], {}, { dir, minBytes: 0 }).cached).toBe(false);
  rmSync(dir, { recursive: true });
});

test('modules below the size threshold are not cached', () => {
  const dir = tempDir('taintlens-cache-');
  const bytes = new Uint8Array(readFileSync('native/wasm/textstat.wasm'));
  instrumentCached(bytes, 'a.wasm', ['loops'], {}, { dir, minBytes: bytes.length + 1 });
  expect(readdirSync(dir)).toEqual([]);
});

test('the cache is bounded: least recently used entries go first, a hit counts as a use', () => {
  const dir = tempDir('taintlens-cache-');
  const bytes = new Uint8Array(readFileSync('native/wasm/textstat.wasm'));
  const entryBytes = () => readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  const variant = (mib: number) => ({ contextBytes: mib << 20 });
  // Each entry is the instrumented module plus its site table; room for two of them, not three.
  instrumentCached(bytes, 'a.wasm', ['loops'], variant(1), { dir, minBytes: 0 });
  const one = entryBytes();
  const cache = { dir, minBytes: 0, maxBytes: Math.floor(one * 2.5) };
  const old = new Date(Date.now() - 60_000);
  const keys = readdirSync(dir).map((f) => f.split('.')[0]!);
  for (const f of readdirSync(dir)) utimesSync(join(dir, f), old, old);
  instrumentCached(bytes, 'a.wasm', ['loops'], variant(2), cache);
  expect(instrumentCached(bytes, 'a.wasm', ['loops'], variant(1), cache).cached).toBe(true); // a use: now the newest
  instrumentCached(bytes, 'a.wasm', ['loops'], variant(3), cache);
  expect(entryBytes()).toBeLessThanOrEqual(cache.maxBytes);
  expect(readdirSync(dir).filter((f) => f.endsWith('.wasm'))).toHaveLength(2);
  expect(readdirSync(dir).some((f) => f.startsWith(keys[0]!))).toBe(true); // used last but one: kept
  expect(instrumentCached(bytes, 'a.wasm', ['loops'], variant(2), cache).cached).toBe(false); // the least recently used went
  expect(entryBytes()).toBeLessThanOrEqual(cache.maxBytes);
  rmSync(dir, { recursive: true });
});

test('an entry larger than the whole cache is not written; TAINTLENS_CACHE_MAX_MB sets the limit', () => {
  const dir = tempDir('taintlens-cache-');
  const bytes = new Uint8Array(readFileSync('native/wasm/textstat.wasm'));
  instrumentCached(bytes, 'a.wasm', ['loops'], {}, { dir, minBytes: 0, maxBytes: 1000 });
  expect(readdirSync(dir)).toEqual([]);
  expect(cacheMaxBytes({})).toBe(DEFAULT_CACHE_MAX_BYTES);
  expect(cacheMaxBytes({ TAINTLENS_CACHE_MAX_MB: '64' })).toBe(64 << 20);
  expect(() => cacheMaxBytes({ TAINTLENS_CACHE_MAX_MB: 'lots' })).toThrow(
    'TAINTLENS_CACHE_MAX_MB: "lots" is not a size in MiB',
  );
});
