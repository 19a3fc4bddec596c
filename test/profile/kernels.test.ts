// Every bundled kernel: the loop table matches its source (the loops named in
// test/expectations/kernels.ts), iteration totals match their closed forms, and the instrumented
// module returns exactly what the original returns.
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { KERNELS } from '../expectations/kernels.js';
import { siteTableOf } from '../../instrument/pipeline.js';
import { plainResult, profile } from '../helpers/profile.js';

const key = (l: { function: string; depth: number }) => `${l.function}@${l.depth}`;

describe.each(KERNELS.map((k) => [k.name, k] as const))('kernel %s', (_name, kernel) => {
  const bytes = readFileSync(kernel.file);
  const isCommand = kernel.kind === 'wasi-command';
  const options = isCommand ? { invoke: null, argv: [...(kernel.argv ?? [])] } : { invoke: kernel.export };
  const args = isCommand ? [] : [...kernel.args];

  test('the static loop table names every loop of the source, at its depth', () => {
    const found = siteTableOf(bytes, kernel.file).loops.map(key).sort();
    const wanted = kernel.loops.map(key).sort();
    if (kernel.loopsListed === 'reachable') {
      const remaining = [...found];
      for (const loop of wanted) {
        const at = remaining.indexOf(loop);
        expect(at, `${loop} is in the binary`).toBeGreaterThanOrEqual(0);
        remaining.splice(at, 1);
      }
    } else {
      expect(found).toEqual(wanted);
    }
  });

  test('iterations match the closed forms and the result is unchanged', async () => {
    const report = await profile(bytes, args, options);
    if (isCommand) {
      expect(report.result).toBe(kernel.expectedExitCode ?? 0);
      if (kernel.expectedStdout !== undefined) expect(report.stdout ?? '').toBe(kernel.expectedStdout);
    } else {
      if (kernel.expectedResult !== undefined) expect(report.result).toBe(kernel.expectedResult);
      expect(report.result).toEqual(await plainResult(bytes, args, kernel.export));
    }
    const table = siteTableOf(bytes, kernel.file);
    const expected = new Map<string, number[]>();
    for (const loop of kernel.loops) {
      if (loop.iterations !== undefined) expected.set(key(loop), [...(expected.get(key(loop)) ?? []), loop.iterations]);
    }
    for (const [where, totals] of expected) {
      const ids = table.loops.filter((l) => key(l) === where).map((l) => l.id);
      const measured = ids.map((id) =>
        report.loops.filter((l) => l.loop === id).reduce((sum, l) => sum + l.iterations, 0),
      );
      if (kernel.loopsListed === 'reachable') {
        expect(
          measured.filter((m) => m > 0).sort((a, b) => a - b),
          where,
        ).toEqual(totals.filter((t) => t > 0).sort((a, b) => a - b));
      } else {
        expect(
          measured.sort((a, b) => a - b),
          where,
        ).toEqual([...totals].sort((a, b) => a - b));
      }
    }
  });
});
