// The instrumentation cache's key covers every file the pipeline loads, found by following its
// imports: a change in a file it reaches only transitively (instrument/debug/, src/util) gives a
// new key, so the cache never serves a module instrumented by older code.
import { expect, test } from 'vitest';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { cacheKey, PIPELINE_ENTRY } from '../../instrument/cache.js';
import { importSpecifiers, moduleGraph } from '../../src/util/module-graph.js';

test('the specifiers a module loads: static, multi-line, re-exports, side effects, literal dynamic imports; not type-only ones', () => {
  const text = [
    "import binaryen from 'binaryen';",
    'import {\n  Block,\n  type Expr,\n} from "./ir.js";',
    "import type { Layout } from './layout.js';",
    "export * from './api.js';",
    "export { a, type B } from '../src/util/errors.js';",
    "export type { C } from './types.js';",
    "import './side-effect.js';",
    "const lazy = await import('./lazy.js');",
    "// import nothing from './comment.js' is a comment",
    "export const from = 'x';",
  ].join('\n');
  expect(importSpecifiers(text)).toEqual([
    'binaryen',
    './ir.js',
    './api.js',
    '../src/util/errors.js',
    './side-effect.js',
    './lazy.js',
  ]);
});

test("the pipeline's graph reaches the debug readers, src/util and Binaryen's version", () => {
  const graph = moduleGraph(PIPELINE_ENTRY);
  const root = join(PIPELINE_ENTRY, '..', '..');
  const files = graph.files.map((f) => relative(root, f).replace(/\.(js|ts)$/, ''));
  for (const reached of [
    'instrument/debug/dwarf-line',
    'instrument/debug/source-map',
    'instrument/passes/shadow-versioning',
    'instrument/layouts',
    'src/util/errors',
    'src/util/leb128',
  ]) {
    expect(files.some((f) => f.endsWith(reached))).toBe(true);
  }
  expect(files.some((f) => f.endsWith('instrument/cache-limit'))).toBe(false);
  const binaryen = JSON.parse(readFileSync('node_modules/binaryen/package.json', 'utf8')) as { version: string };
  expect(graph.packages).toEqual([`binaryen@${binaryen.version}`]);
});

test('a change in a transitively imported file changes the cache key; a file the pipeline does not load does not', () => {
  const copy = mkdtempSync(join(tmpdir(), 'taintlens-cache-key-'));
  try {
    cpSync('instrument', join(copy, 'instrument'), { recursive: true });
    cpSync('src/util', join(copy, 'src/util'), { recursive: true });
    const entry = join(copy, 'instrument', 'pipeline.ts');
    const bytes = new Uint8Array(readFileSync('build/kernels/matmul.wasm'));
    const key = () => cacheKey(bytes, ['loops'], {}, moduleGraph(entry).hash);
    const original = key();
    expect(key()).toBe(original);
    appendFileSync(join(copy, 'instrument', 'cache-limit.ts'), '\n// not loaded by the pipeline\n');
    expect(key()).toBe(original);
    appendFileSync(join(copy, 'instrument', 'debug', 'dwarf-line.ts'), '\n// changed\n');
    const afterDebug = key();
    expect(afterDebug).not.toBe(original);
    appendFileSync(join(copy, 'src', 'util', 'leb128.ts'), '\n// changed\n');
    expect(key()).not.toBe(afterDebug);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
