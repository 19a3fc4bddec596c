// Every kernel of the suite (AssemblyScript and C): the taint-instrumented module returns exactly
// what the original returns on the same inputs, and its parameters are found.
import { test, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { analyzeTaint } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';

const kernels: Array<{ file: string; invoke: string; args: string[] }> = [
  { file: 'build/kernels/matmul.wasm', invoke: 'run', args: ['12'] },
  { file: 'build/kernels/stencil.wasm', invoke: 'run', args: ['10', '3'] },
  { file: 'build/kernels/cg.wasm', invoke: 'run', args: ['200', '5'] },
  { file: 'build/kernels/fft.wasm', invoke: 'run', args: ['8'] },
  { file: 'build/kernels/mergesort.wasm', invoke: 'run', args: ['1000'] },
  { file: 'build/kernels/nbody.wasm', invoke: 'run', args: ['20', '3'] },
  { file: 'build/kernels/scan.wasm', invoke: 'run', args: ['5000'] },
  { file: 'build/kernels/miniapp.wasm', invoke: 'run', args: ['4', '2', '3', '2', '2'] },
  { file: 'native/wasm/matmul.wasm', invoke: 'run', args: ['12'] },
  { file: 'native/wasm/stencil.wasm', invoke: 'run', args: ['10', '3'] },
  { file: 'native/wasm/miniapp.wasm', invoke: 'run', args: ['4', '2', '3', '2', '2'] },
];

for (const k of kernels) {
  test.skipIf(!existsSync(k.file))(
    `${k.file} ${k.args.join(',')}: same result, parameters drive loops`,
    { timeout: 120_000 },
    async () => {
      const bytes = readFileSync(k.file);
      const plain = await runModule({ file: k.file, bytes, invoke: k.invoke, args: k.args });
      const { report, outcome } = await analyzeTaint({ file: k.file, bytes, invoke: k.invoke, args: k.args });
      expect(outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
      expect(report.parameters.length).toBeGreaterThan(0);
      expect(report.functions.some((f) => f.dependency !== null)).toBe(true);
    },
  );
}
