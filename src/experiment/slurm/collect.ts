// `taintlens experiment --collect DIR`: merges the points the array tasks measured into the
// campaign's store, DIR/measurements.jsonl, each point exactly once (a point already in the store,
// or met again in a later task file, is skipped), and rewrites DIR/points.jsonl and
// DIR/summary.json. Each file is replaced atomically, the statistics before the measurements, so
// a collect that is interrupted leaves the store as it was or complete. Task files and the store
// must all record the same campaign: two campaigns are never mixed.
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { pointKey } from '../grid.js';
import { completeLines, prepareOutput } from '../resume.js';
import { readPointSummaries } from '../experiment.js';
import { prepareExperimentDir, writeSummary } from '../experiment-dir.js';
import type { PointSummary } from '../summary.js';
import { taskPoints } from './measured.js';
import { taskFiles } from './round.js';
import { campaignRounds } from './status.js';

export interface Collection {
  measurements: string;
  summary: string;
  /** Points merged now. */
  collected: number;
  /** Points the store held before. */
  already: number;
  /** Points of the design measured nowhere yet. */
  missing: number;
  points: number;
  lines: number;
}

export function collectCampaign(dir: string): Collection {
  const rounds = campaignRounds(dir);
  const latest = rounds.at(-1)!;
  const paths = prepareExperimentDir(dir);
  const done = prepareOutput(paths.measurements, latest.identity);
  const already = done.size;
  const stats: PointSummary[] = readPointSummaries(paths.points);
  const lines: string[] = [];
  let collected = 0;
  for (const record of rounds) {
    record.tasks.forEach((_, task) => {
      const measured = taskPoints(dir, record, task, latest.identity);
      const taskStats = new Map(
        readPointSummaries(taskFiles(dir, record.round, task).points).map((s) => [pointKey(s.params), s]),
      );
      for (const [key, point] of measured) {
        if (done.has(key)) continue;
        done.add(key);
        collected++;
        lines.push(...point.lines);
        const stat = taskStats.get(key);
        if (stat) stats.push(stat);
      }
    });
  }
  if (collected > 0) {
    const before = existsSync(paths.measurements)
      ? completeLines(readFileSync(paths.measurements, 'utf8')).lines.filter((l) => l.trim())
      : [];
    writeFileAtomic(paths.points, stats.map((s) => JSON.stringify(s) + '\n').join(''));
    writeFileAtomic(paths.measurements, [...before, ...lines].map((l) => l + '\n').join(''));
  }
  writeSummary(paths, latest.definition.module, {
    selection: latest.selection,
    design: latest.design,
    campaign: { points: latest.design.points.length, measured: collected, resumed: already, lines: lines.length },
  });
  const missing = latest.design.points.filter((p) => !done.has(pointKey(p))).length;
  return {
    measurements: paths.measurements,
    summary: paths.summary,
    collected,
    already,
    missing,
    points: done.size,
    lines: lines.length,
  };
}
