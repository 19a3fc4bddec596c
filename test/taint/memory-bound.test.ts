// The memory-bound PolyBench-style C kernels (plain -O2, unrolled; most of their loops run the
// alignment-versioned copy): same result as the original, and each kernel function's dependency
// read from the source.
import { test, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { analyzeTaint } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';

const kernels = [
  { file: 'native/wasm/gemm.wasm', args: ['12'], fn: 'kernel_gemm', dependency: 'n*n*n' },
  { file: 'native/wasm/trmm.wasm', args: ['10', '12'], fn: 'kernel_trmm', dependency: 'm*m*n' },
  { file: 'native/wasm/jacobi2d.wasm', args: ['10', '3'], fn: 'kernel_jacobi_2d', dependency: 'n*n*tsteps' },
  { file: 'native/wasm/heat3d.wasm', args: ['8', '3'], fn: 'kernel_heat_3d', dependency: 'n*n*n*tsteps' },
  { file: 'native/wasm/lu.wasm', args: ['12'], fn: 'kernel_lu', dependency: 'n*n*n' },
];

for (const k of kernels) {
  test(`${k.file} ${k.args.join(',')}: same result, ${k.fn} is ${k.dependency}`, { timeout: 120_000 }, async () => {
    const bytes = readFileSync(k.file);
    const plain = await runModule({ file: k.file, bytes, invoke: 'run', args: k.args });
    const { report, outcome } = await analyzeTaint({ file: k.file, bytes, invoke: 'run', args: k.args });
    expect(outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
    expect(report.functions.find((f) => f.name === k.fn)?.dependency).toBe(k.dependency);
  });
}
