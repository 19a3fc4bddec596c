// Runs a module as it is and under the taint analysis, checks the instrumented run returns exactly
// what the original returns, and gives the analysis.
import { expect } from 'vitest';
import { analyzeTaint, parseParamSpec, type TaintAnalysis, type TaintRunOptions } from '../../src/taint/analyze.js';
import type { TaintReport } from '../../src/taint/report.js';
import { wat } from './wat.js';
import { runModule } from '../../src/runtime/run.js';

export async function taintChecked(
  options: TaintRunOptions & { invoke: string; args: string[] },
): Promise<TaintAnalysis> {
  const { file, bytes, invoke, args } = options;
  const plain = await runModule({ file, bytes, invoke, args });
  const analysis = await analyzeTaint(options);
  expect(analysis.outcome.repetitions[0]!.result).toEqual(plain.repetitions[0]!.result);
  return analysis;
}

/** The report of a WAT fixture's export under the taint analysis, parameters as `NAME=argK`. */
export async function taintWat(
  text: string,
  invoke: string,
  args: string[],
  params: string[],
  options: Omit<TaintRunOptions, 'file' | 'bytes' | 'invoke' | 'args' | 'params'> = {},
): Promise<TaintReport> {
  const analysis = await taintChecked({
    ...options,
    file: 'fixture.wasm',
    bytes: wat(text),
    invoke,
    args,
    params: params.map(parseParamSpec),
  });
  return analysis.report;
}
