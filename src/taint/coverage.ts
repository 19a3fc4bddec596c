// Which functions a taint run needs instrumented. Most of a large program's code does not run in a
// given run, and code that does not run adds nothing to any label: so the taint analysis first runs
// the program with the entry-bitmap pass (one byte per function, set at its entry) and instruments
// only the functions that run entered (the covered set). The taint pass gives every other function
// an entry guard; a run that trips one (the program took another path: timing, addresses, input)
// is not data, and the analysis runs again with those functions added (analyze.ts).
import { instrumentIsolated } from '../runtime/isolated-instrument.js';
import type { InstrumentOptions } from '../../instrument/pipeline.js';
import type { EntryBitmapLayout } from '../../instrument/passes/entry-bitmap.js';
import type { TaintLayout } from '../../instrument/passes/taint.js';
import { runModule, type RunOptions, type RunOutcome } from '../runtime/run.js';
import type { RepetitionResult } from '../runtime/protocol.js';

export { COVERAGE_MODES, COVERAGE_MIN_BYTES, coverageApplies, type CoverageMode } from './coverage-mode.js';

/** Taint runs with guards tripped before every function is instrumented. */
export const COVERAGE_ROUNDS = 3;

export type CoverageRun = Pick<
  RunOptions,
  'file' | 'bytes' | 'invoke' | 'args' | 'argv' | 'timeoutMs' | 'wasi' | 'plugins' | 'ranks'
>;

/** Runs the module once with the entry bitmap; returns the site-table names of the functions any rank entered, sorted. */
export async function enteredFunctions(run: CoverageRun, instrument: InstrumentOptions): Promise<string[]> {
  const instrumented = await instrumentIsolated(run.bytes, run.file, ['entry-bitmap'], instrument);
  const layout = instrumented.sites.passes['entry-bitmap'] as EntryBitmapLayout;
  const outcome = await runModule({
    ...run,
    bytes: instrumented.bytes,
    repeat: 1,
    regions: [{ name: 'entry-bitmap', base: layout.base, bytes: Math.max(layout.bytes, 1) }],
    programBase: instrumented.sites.layout?.programBase ?? 0,
  });
  const entered = new Set<string>();
  for (const rep of repetitionsOf(outcome)) {
    const bitmap = rep.regions['entry-bitmap']!;
    layout.functions.forEach((name, i) => {
      if (name !== null && bitmap[i] !== 0) entered.add(name);
    });
  }
  return [...entered].sort();
}

/** The uncovered functions a taint run entered after all (their guards fired), in any rank or repetition. */
export function trippedGuards(layout: TaintLayout, outcome: RunOutcome): string[] {
  const tripped = new Set<string>();
  for (const rep of repetitionsOf(outcome)) {
    const sinks = rep.regions.taint!;
    const view = new DataView(sinks.buffer, sinks.byteOffset, sinks.byteLength);
    for (const guard of layout.guards ?? [])
      if (view.getUint32(guard.sink - layout.sinks.base, true) !== 0) tripped.add(guard.function);
  }
  return [...tripped].sort();
}

function repetitionsOf(outcome: RunOutcome): RepetitionResult[] {
  return outcome.ranks ? outcome.ranks.flatMap((r) => r.repetitions) : outcome.repetitions;
}
