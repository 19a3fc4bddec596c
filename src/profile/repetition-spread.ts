// When repetitions of a profiled run disagree (the program reads the real clock, randomness or
// outside state), the profile of the first repetition is kept and the spread is reported: the
// range of the total and of every loop context whose iterations differ, instead of failing.
import type { LoopProfile } from './loop-profile.js';

export interface Range {
  min: number;
  max: number;
}

export interface RepetitionSpread {
  repetitions: number;
  totalInstructions: Range;
  /** Loop contexts whose iteration counts differ, or that some repetitions never reached. */
  loops: Array<{ id: string; iterations: Range; reachedIn: number }>;
}

const range = (values: number[]): Range => ({ min: Math.min(...values), max: Math.max(...values) });

/** Null when every repetition counted the same. */
export function repetitionSpread(profiles: LoopProfile[]): RepetitionSpread | null {
  const reference = JSON.stringify(profiles[0]);
  if (profiles.every((p) => JSON.stringify(p) === reference)) return null;
  const byId = new Map<string, number[]>();
  for (const profile of profiles) {
    for (const loop of profile.loops) byId.set(loop.id, [...(byId.get(loop.id) ?? []), loop.iterations]);
  }
  const loops = [...byId].flatMap(([id, counts]) => {
    const spread = range(counts);
    return spread.min !== spread.max || counts.length !== profiles.length
      ? [{ id, iterations: spread, reachedIn: counts.length }]
      : [];
  });
  return { repetitions: profiles.length, totalInstructions: range(profiles.map((p) => p.totalInstructions)), loops };
}

/** One line for the text report. */
export function describeSpread(spread: RepetitionSpread): string {
  const total = spread.totalInstructions;
  return (
    `warning: counts differ between the ${spread.repetitions} repetitions (the program reads the clock, randomness or outside state): ` +
    `${spread.loops.length} loop context(s) differ, total instructions ${total.min.toLocaleString('en-US')}..${total.max.toLocaleString('en-US')}; ` +
    'the table shows the first repetition (--json lists the ranges)'
  );
}
