// Every bundled kernel: the loop table matches its source (the loops named in
// test/expectations/kernels.ts), iteration totals match their closed forms, and the instrumented
// module returns exactly what the original returns.
import { describe, expect, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import * as expectations from '../expectations/kernels.js';
import { siteTableOf } from '../../instrument/pipeline.js';
import { plainResult, profile } from '../helpers/profile.js';

interface ExpectedLoop { function: string; depth: number; iterations?: number }
interface ExpectedKernel {
  name: string; file: string; kind: string; export: string; args: number[]; argv?: string[];
  expectedResult?: number; loops: ExpectedLoop[];
}

const kernels = (Object.values(expectations).find(Array.isArray) ?? []) as ExpectedKernel[];

describe.each(kernels.map((k) => [k.name, k] as const))('kernel %s', (_name, kernel) => {
  const bytes = () => {
    expect(existsSync(kernel.file), `${kernel.file} is built`).toBe(true);
    return readFileSync(kernel.file);
  };
  const isCommand = kernel.kind === 'wasi-command';
  const options = isCommand ? { invoke: null, argv: kernel.argv ?? [] } : { invoke: kernel.export };
  const args = isCommand ? [] : kernel.args;

  test('the static loop table names every loop of the source, at its depth', () => {
    const table = siteTableOf(bytes(), kernel.file);
    const found = table.loops.map((l) => `${l.function}@${l.depth}`).sort();
    const wanted = kernel.loops.map((l) => `${l.function}@${l.depth}`).sort();
    expect(found).toEqual(wanted);
  });

  test('iterations match the closed forms and the result is unchanged', async () => {
    const report = await profile(bytes(), args, options);
    if (kernel.expectedResult !== undefined) expect(report.result).toBe(kernel.expectedResult);
    if (!isCommand) expect(report.result).toEqual(await plainResult(bytes(), args, kernel.export));
    const byFunction = new Map<string, number[]>();
    for (const loop of kernel.loops.filter((l) => l.iterations !== undefined)) {
      byFunction.set(`${loop.function}@${loop.depth}`, [...(byFunction.get(`${loop.function}@${loop.depth}`) ?? []), loop.iterations!]);
    }
    for (const [key, expected] of byFunction) {
      const [fn, depth] = key.split('@');
      const staticDepth = Number(depth);
      const table = siteTableOf(bytes(), kernel.file);
      const ids = table.loops.filter((l) => l.function === fn && l.depth === staticDepth).map((l) => l.id);
      const measured = ids.map((id) => report.loops.filter((l) => l.loop === id).reduce((sum, l) => sum + l.iterations, 0));
      expect(measured.sort((a, b) => a - b), key).toEqual([...expected].sort((a, b) => a - b));
    }
  });
});
