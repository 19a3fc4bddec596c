// Binaryen's own fuzzer as a module source: `wasm-opt -ttf` turns random bytes into a valid module
// with `fuzzing-support` logging imports and a built-in hang limit. Optional: found on PATH or via
// $TAINTLENS_WASM_OPT (Debian's `binaryen` package); the committed corpus covers machines without it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from './rng.js';

/**
 * Features for generated modules: what Node 20 compiles and our reader accepts. Reference types are
 * left out: Binaryen 108 then emits typed function references, which Node 20 rejects.
 */
export const TTF_FEATURES = [
  '--enable-bulk-memory', '--enable-sign-ext', '--enable-mutable-globals',
  '--enable-nontrapping-float-to-int', '--enable-simd', '--enable-multivalue',
];

let cached: string | null | undefined;

export function wasmOptPath(): string | null {
  if (cached !== undefined) return cached;
  const candidates = [process.env.TAINTLENS_WASM_OPT, 'wasm-opt'].filter((c): c is string => !!c);
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0 && /wasm-opt version/.test(probe.stdout)) return (cached = candidate);
  }
  return (cached = null);
}

/** Input sizes vary with the seed so modules range from a few functions to a few dozen. */
export function ttfInputSize(seed: number): number {
  return new Rng(seed ^ 0x7ff1).range(256, 12_000);
}

export function generateTtf(seed: number): Uint8Array {
  const wasmOpt = wasmOptPath();
  if (!wasmOpt) throw new Error('wasm-opt not found (install Debian\'s binaryen package or set TAINTLENS_WASM_OPT)');
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-ttf-'));
  try {
    const input = join(dir, 'random.bin');
    const output = join(dir, 'module.wasm');
    writeFileSync(input, new Rng(seed).bytes(ttfInputSize(seed)));
    execFileSync(wasmOpt, [input, '-ttf', ...TTF_FEATURES, '-o', output], { stdio: ['ignore', 'ignore', 'pipe'] });
    return new Uint8Array(readFileSync(output));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
