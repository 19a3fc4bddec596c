// Which functions a taint run needs instrumented. Most of a large program's code does not run in a
// given run, and code that does not run adds nothing to any label: so the taint analysis first runs
// the program with the entry-work pass (per function a coarse count of the instructions it ran) and
// instruments only the functions that run entered (the covered set), those that did little work
// without the taint pass's optimizations (cold-functions.ts). The taint pass gives every other function
// an entry guard; a run that trips one (the program took another path: timing, addresses, input)
// is not data, and the analysis runs again with those functions added (analyze.ts).
import { instrumentIsolated } from '../runtime/isolated-instrument.js';
import type { InstrumentOptions } from '../../instrument/pipeline.js';
import { ENTRY_WORK_COUNTER_BYTES, readEntryWork, type EntryWorkLayout } from '../../instrument/passes/entry-work.js';
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

/** What the first run found: the functions any rank entered (site-table names, sorted) and the work each did. */
export interface FirstRun {
  entered: string[];
  /** Per entered function, its coarse instruction count summed over ranks (entry-work.ts). */
  work: Map<string, number>;
  /** Every defined function's static instruction count (the site table's). */
  instructions: Map<string, number>;
}

/** Runs the module once with the entry-work counters. */
export async function firstRun(run: CoverageRun, instrument: InstrumentOptions): Promise<FirstRun> {
  const instrumented = await instrumentIsolated(run.bytes, run.file, ['entry-work'], instrument);
  const layout = instrumented.sites.passes['entry-work'] as EntryWorkLayout;
  const outcome = await runModule({
    ...run,
    bytes: instrumented.bytes,
    repeat: 1,
    regions: [{ name: 'entry-work', base: layout.base, bytes: Math.max(layout.bytes, ENTRY_WORK_COUNTER_BYTES) }],
    programBase: instrumented.sites.layout?.programBase ?? 0,
  });
  const work = new Map<string, number>();
  // Repetitions of one rank ran the same program: the first says what one run does.
  const runs = outcome.ranks ? outcome.ranks.map((r) => r.repetitions[0]!) : outcome.repetitions.slice(0, 1);
  for (const rep of runs)
    for (const [name, count] of readEntryWork(layout, rep.regions['entry-work']!))
      work.set(name, (work.get(name) ?? 0) + count);
  const instructions = new Map(instrumented.sites.functions.map((f) => [f.name, f.instructions]));
  return { entered: [...work.keys()].sort(), work, instructions };
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
