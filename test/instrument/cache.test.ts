// Instrumented modules are cached by content (module, modes, options, instrumenter code): a second
// loops or taint of the same module reads the cache, and anything that changes the output misses it.
import { expect, test } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instrumentCached } from '../../instrument/cache.js';

test('the second instrumentation of the same module comes from the cache, identical', () => {
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-cache-'));
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

test('modules below the size threshold are not cached', () => {
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-cache-'));
  const bytes = new Uint8Array(readFileSync('native/wasm/textstat.wasm'));
  instrumentCached(bytes, 'a.wasm', ['loops'], {}, { dir, minBytes: bytes.length + 1 });
  expect(readdirSync(dir)).toEqual([]);
});
