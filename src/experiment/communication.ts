// The communication metrics of an SPMD campaign, one call path per communication call
// (`MPI_Allreduce`, `MPI_Isend`, … as the run names them; the raw taintlens_mp calls by their own
// names): `bytes`, the bytes the call moved (sends count what they sent, receives and the waits and
// tests completing them what they received; no line where a call moved none), and `calls`, how often it was called, both summed over
// the ranks and exact (the whole program's communication volume, as instructions are its work); and
// `commtime`, per repetition the time in the call of the rank that spent the most in it (ms).
import type { OpStats } from '../runtime/spmd/op-stats.js';

export type CommunicationMetric = 'bytes' | 'calls' | 'commtime';
export const COMMUNICATION_METRICS: readonly CommunicationMetric[] = ['bytes', 'calls', 'commtime'];

/** Per repetition, every rank's statistics per communication call. */
export type RankCommunication = Array<Array<Record<string, OpStats>>>;

export interface CommunicationLine {
  callpath: string;
  metric: CommunicationMetric;
  value: number;
}

/** The lines of the communication metrics asked for (exact ones from the first repetition). */
export function communicationLines(repetitions: RankCommunication, metrics: readonly string[]): CommunicationLine[] {
  const lines: CommunicationLine[] = [];
  const first = repetitions[0] ?? [];
  for (const op of callNames(first)) {
    const bytes = sum(of(first, op).map((s) => s?.bytes ?? 0));
    if (metrics.includes('bytes') && bytes > 0) lines.push({ callpath: op, metric: 'bytes', value: bytes });
    if (metrics.includes('calls'))
      lines.push({ callpath: op, metric: 'calls', value: sum(of(first, op).map((s) => s?.calls ?? 0)) });
  }
  if (metrics.includes('commtime')) {
    for (const ranks of repetitions)
      for (const op of callNames(ranks))
        lines.push({
          callpath: op,
          metric: 'commtime',
          value: Math.max(...of(ranks, op).map((s) => s?.totalMs ?? 0)),
        });
  }
  return lines;
}

function of(ranks: Array<Record<string, OpStats>>, op: string): Array<OpStats | undefined> {
  return ranks.map((rank) => rank[op]);
}

/** The calls any rank made, sorted. */
function callNames(ranks: Array<Record<string, OpStats>>): string[] {
  return [...new Set(ranks.flatMap((rank) => Object.keys(rank)))].sort();
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
