// Big flattened functions skip Binaryen's coalesce-locals (superlinear in locals) and get the
// linear merge of engine-limits.ts instead: instrumenting one stays fast, the program computes the
// same, and the taint result is unchanged.
import { expect, test } from 'vitest';
import binaryen from 'binaryen';
import { syntheticModule } from '../../bench/synthetic-module.js';
import { analyzeTaint, parseParamSpec } from '../../src/taint/analyze.js';
import { runModule } from '../../src/runtime/run.js';
import { COALESCE_LOCALS_LIMIT } from '../../instrument/passes/taint-optimize.js';

test('a function with thousands of locals after flattening instruments quickly and runs the same', async () => {
  // Two functions: the second calls the first; each a loop over n around 800 statements.
  const bytes = syntheticModule(2 * 11_300, 800);
  const plain = await runModule({ file: 'big.wasm', bytes, invoke: 'run', args: ['5'] });
  const start = performance.now();
  const { report, instrumented, outcome, sites } = await analyzeTaint({
    file: 'big.wasm',
    bytes,
    invoke: 'run',
    args: ['5'],
    params: [parseParamSpec('n=arg0')],
  });
  const seconds = (performance.now() - start) / 1000;
  expect(outcome.repetitions[0]!.result).toBe(plain.repetitions[0]!.result);
  const module = binaryen.readBinary(instrumented);
  const locals = Array.from(
    { length: module.getNumFunctions() },
    (_, i) => binaryen.getFunctionInfo(module.getFunctionByIndex(i)).vars.length,
  );
  module.dispose();
  // Over the coalescing limit after the pass; engine-limits.ts then merged the locals in linear time.
  const fitted = sites.fitted ?? [];
  expect(Math.max(...fitted.map((f) => f.locals))).toBeGreaterThan(COALESCE_LOCALS_LIMIT);
  expect(Math.max(...locals)).toBeLessThan(COALESCE_LOCALS_LIMIT);
  expect(seconds).toBeLessThan(60);
  // The same taint result as without any optimization.
  const reference = await analyzeTaint({
    file: 'big.wasm',
    bytes,
    invoke: 'run',
    args: ['5'],
    params: [parseParamSpec('n=arg0')],
    noOptimize: true,
  });
  expect(report.loops).toEqual(reference.report.loops);
  expect(report.functions).toEqual(reference.report.functions);
  expect(report.loops.map((l) => l.params)).toContainEqual(['n']);
}, 120_000);
