// An SPMD run takes as long as its slowest rank: per repetition, the repetition of the rank that
// took longest (a plain run's repetitions pass through).
import type { RunOutcome } from '../run.js';
import type { RepetitionResult } from '../protocol.js';

export function slowestRankRepetitions(outcome: RunOutcome): RepetitionResult[] {
  const ranks = outcome.ranks;
  if (!ranks) return outcome.repetitions;
  return outcome.repetitions.map((_, i) => ranks.map((r) => r.repetitions[i]!).reduce((a, b) => (b.ms > a.ms ? b : a)));
}

export function slowestRankMs(outcome: RunOutcome): number[] {
  return slowestRankRepetitions(outcome).map((r) => r.ms);
}
