// Per-rank summary of an SPMD run, for every command that runs with --ranks: each rank's result,
// time, time in communication and (where counted) instructions, their spread over the ranks, and
// for the communication call that took the most time its first call apart from the steady state
// (Adve et al.): a pipeline's leading edge shows as first-call waits growing with the rank.
import type { RankOutcome } from '../runtime/spmd/spmd-run.js';
import type { OpStats } from '../runtime/spmd/op-stats.js';
import { populationSpread, type PopulationSpread } from '../util/stats.js';
import { renderTable, type Column } from './table.js';

export interface RankSummary {
  rank: number;
  result: unknown;
  ms: number;
  communicationMs: number;
  instructions?: number;
  communication: Record<string, OpStats>;
  /** What a WASI rank printed (absent when nothing; the command's own output is rank 0's). */
  stdout?: string;
  stderr?: string;
}

export interface SpmdSummary {
  ranks: number;
  perRank: RankSummary[];
  time: PopulationSpread;
  communicationTime: PopulationSpread;
  instructions?: PopulationSpread;
  /** The communication call with the most time over all ranks (shown in the table). */
  mainOperation: string | null;
}

export function spmdSummary(ranks: RankOutcome[], instructions?: number[]): SpmdSummary {
  const perRank = ranks.map(({ rank, repetitions }) => {
    const rep = repetitions[0]!;
    const communicationMs = Object.values(rep.communication).reduce((sum, op) => sum + op.totalMs, 0);
    return {
      rank,
      result: rep.result,
      ms: rep.ms,
      communicationMs,
      ...(instructions ? { instructions: instructions[rank]! } : {}),
      communication: rep.communication,
      ...(rep.stdout ? { stdout: rep.stdout } : {}),
      ...(rep.stderr ? { stderr: rep.stderr } : {}),
    };
  });
  const totals = new Map<string, number>();
  for (const r of perRank)
    for (const [op, stats] of Object.entries(r.communication)) totals.set(op, (totals.get(op) ?? 0) + stats.totalMs);
  const mainOperation = [...totals].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  return {
    ranks: perRank.length,
    perRank,
    time: populationSpread(perRank.map((r) => r.ms)),
    communicationTime: populationSpread(perRank.map((r) => r.communicationMs)),
    ...(instructions ? { instructions: populationSpread(instructions) } : {}),
    mainOperation,
  };
}

const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(2));

export function ranksTable(summary: SpmdSummary, width?: number): string {
  const op = summary.mainOperation;
  const stats = (r: RankSummary) => (op ? r.communication[op] : undefined);
  const columns: Column<RankSummary>[] = [
    { header: 'rank', value: (r) => r.rank, align: 'right' },
    { header: 'result', value: (r) => JSON.stringify(r.result), shrink: 'end', max: 24 },
    { header: 'time ms', value: (r) => ms(r.ms), align: 'right' },
    { header: 'comm ms', value: (r) => ms(r.communicationMs), align: 'right' },
    ...(summary.instructions
      ? [{ header: 'instructions', value: (r: RankSummary) => r.instructions ?? 0, align: 'right' as const }]
      : []),
    ...(op
      ? [
          {
            header: `${op} calls`,
            value: (r: RankSummary) => stats(r)?.calls ?? 0,
            align: 'right' as const,
            dropOrder: 1,
          },
          { header: 'first ms', value: (r: RankSummary) => ms(stats(r)?.firstMs), align: 'right' as const },
          { header: 'steady mean', value: (r: RankSummary) => ms(stats(r)?.steady?.meanMs), align: 'right' as const },
          {
            header: 'cv',
            value: (r: RankSummary) => (stats(r)?.steady ? stats(r)!.steady!.cv.toFixed(2) : '-'),
            align: 'right' as const,
            dropOrder: 2,
          },
          {
            header: 'min',
            value: (r: RankSummary) => ms(stats(r)?.steady?.minMs),
            align: 'right' as const,
            dropOrder: 3,
          },
          {
            header: 'max',
            value: (r: RankSummary) => ms(stats(r)?.steady?.maxMs),
            align: 'right' as const,
            dropOrder: 3,
          },
        ]
      : []),
  ];
  const lines = [
    `${summary.ranks} rank(s)${op ? `; the ${op} columns: its first call apart, then the steady state (mean, CV, min, max)` : ''}`,
    renderTable(summary.perRank, columns, width === undefined ? {} : { width }),
    describeSpread('time', summary.time, 'ms'),
  ];
  if (summary.instructions) lines.push(describeSpread('instructions', summary.instructions, ''));
  return lines.join('\n');
}

function describeSpread(what: string, spread: PopulationSpread, unit: string): string {
  const f = (v: number) => (unit ? v.toFixed(2) : String(Math.round(v)));
  return `${what} over ranks: mean ${f(spread.mean)}${unit ? ` ${unit}` : ''}, CV ${spread.cv.toFixed(3)}, min ${f(spread.min)}, max ${f(spread.max)} (max/mean ${spread.imbalance.toFixed(2)})`;
}
