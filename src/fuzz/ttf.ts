// Binaryen's own fuzzer as a module source: `wasm-opt -ttf` turns random bytes into a valid module
// with `fuzzing-support` logging imports and a built-in hang limit. The wasm-opt is pinned: the one
// of the `binaryen` npm package this project depends on (run with this Node), never whatever
// `wasm-opt` comes first on PATH, so a seed gives the same module on every machine with the same
// lockfile. $TAINTLENS_WASM_OPT overrides it explicitly (its version is printed like the default's).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from './rng.js';

/**
 * Features for generated modules: what Node 20 compiles and our reader accepts. Reference types are
 * left out: Binaryen then emits typed function references, which Node 20 rejects.
 */
export const TTF_FEATURES = [
  '--enable-bulk-memory',
  '--enable-sign-ext',
  '--enable-mutable-globals',
  '--enable-nontrapping-float-to-int',
  '--enable-simd',
  '--enable-multivalue',
  '--enable-tail-call',
];

export interface WasmOpt {
  /** Program and leading arguments: [node, .../binaryen/bin/wasm-opt] for the package's build. */
  command: [string, ...string[]];
  /** Where it is, for people. */
  path: string;
  /** `wasm-opt version 132 (version_132)`. */
  version: string;
}

let cached: WasmOpt | string | undefined;

/** The package's wasm-opt (a Node script next to binaryen's index.js). */
function packagedWasmOpt(): string | null {
  try {
    const script = join(dirname(fileURLToPath(import.meta.resolve('binaryen'))), 'bin', 'wasm-opt');
    return existsSync(script) ? script : null;
  } catch {
    return null;
  }
}

function probe(command: [string, ...string[]], path: string): WasmOpt | string {
  const [program, ...leading] = command;
  const result = spawnSync(program, [...leading, '--version'], { encoding: 'utf8' });
  const version = /wasm-opt version .*/.exec(result.stdout ?? '')?.[0]?.trim();
  if (result.status === 0 && version) return { command, path, version };
  return `${path} does not run as wasm-opt (${result.error?.message ?? (result.stderr || `exit ${result.status}`).toString().trim().split('\n')[0]})`;
}

/** Which wasm-opt to run, without running it: the override, else the package's (null: none installed). */
function wasmOptCommand(): { command: [string, ...string[]]; path: string } | null {
  const override = process.env.TAINTLENS_WASM_OPT;
  if (override) return { command: [override], path: override };
  const script = packagedWasmOpt();
  return script ? { command: [process.execPath, script], path: script } : null;
}

/** The pinned wasm-opt with its version, or why there is none (a message naming what was tried). */
export function findWasmOpt(): WasmOpt | string {
  if (cached !== undefined) return cached;
  const found = wasmOptCommand();
  if (!found) return (cached = 'wasm-opt not found: the binaryen package is missing from node_modules (run npm ci)');
  return (cached = probe(found.command, found.path));
}

/** Input sizes vary with the seed so modules range from a few functions to a few dozen. */
export function ttfInputSize(seed: number): number {
  return new Rng(seed ^ 0x7ff1).range(256, 12_000);
}

export function generateTtf(seed: number): Uint8Array {
  const found = wasmOptCommand();
  if (!found) throw new Error('wasm-opt not found: the binaryen package is missing from node_modules (run npm ci)');
  const [program, ...leading] = found.command;
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-ttf-'));
  try {
    const input = join(dir, 'random.bin');
    const output = join(dir, 'module.wasm');
    writeFileSync(input, new Rng(seed).bytes(ttfInputSize(seed)));
    execFileSync(program, [...leading, input, '-ttf', ...TTF_FEATURES, '-o', output], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return new Uint8Array(readFileSync(output));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
