// Which points a SLURM campaign has measured, wherever they are: the campaign's store
// (DIR/measurements.jsonl) and every task's own file. Only whole points count (a task killed
// mid-write leaves a torn point, which is measured again).
import { existsSync, readFileSync } from 'node:fs';
import { completeLines, measuredParams } from '../resume.js';
import { pointKey, type GridPoint } from '../grid.js';
import { identityDifference, readIdentity, type CampaignIdentity } from '../identity.js';
import { fileError } from '../../util/errors.js';
import { taskFiles, type RoundRecord } from './round.js';

export interface MeasuredPoint {
  params: GridPoint;
  /** The point's JSON Lines, as written. */
  lines: string[];
}

/** The whole points of a measurements file, by point key, in file order. */
export function pointsInFile(file: string): Map<string, MeasuredPoint> {
  const points = new Map<string, MeasuredPoint>();
  if (!existsSync(file)) return points;
  for (const line of completeLines(readFileSync(file, 'utf8')).lines) {
    const params = line.trim() ? measuredParams(line) : null;
    if (!params) continue;
    const key = pointKey(params);
    const point = points.get(key) ?? { params, lines: [] };
    point.lines.push(line);
    points.set(key, point);
  }
  return points;
}

/** A task's measured points, after checking its file was measured as this campaign. */
export function taskPoints(
  dir: string,
  record: RoundRecord,
  task: number,
  identity: CampaignIdentity,
): Map<string, MeasuredPoint> {
  const files = taskFiles(dir, record.round, task);
  const recorded = readIdentity(files.measurements);
  if (recorded) {
    const difference = identityDifference(recorded, identity);
    if (difference)
      throw fileError(
        files.measurements,
        `holds another campaign (${difference}): SLURM tasks of two campaigns are never merged`,
      );
  }
  return pointsInFile(files.measurements);
}

/** Refuses a folder whose earlier rounds measured another campaign. */
export function checkRounds(dir: string, rounds: RoundRecord[], identity: CampaignIdentity): void {
  for (const record of rounds) {
    const difference = identityDifference(record.identity, identity);
    if (difference) {
      throw fileError(
        dir,
        `round ${record.round} of its SLURM campaign measured another campaign (${difference}): use another --out, or delete ${dir} to start over`,
      );
    }
  }
}

/** Refuses to run a campaign here while its SLURM tasks hold points the store does not: they would be measured twice. */
export function refuseUncollected(dir: string, rounds: RoundRecord[], store: string): void {
  if (rounds.length === 0) return;
  const stored = pointsInFile(store);
  const latest = rounds.at(-1)!;
  let uncollected = 0;
  for (const record of rounds) {
    record.tasks.forEach((_, task) => {
      for (const key of taskPoints(dir, record, task, latest.identity).keys()) if (!stored.has(key)) uncollected++;
    });
  }
  if (uncollected > 0) {
    throw fileError(
      dir,
      `its SLURM tasks measured ${uncollected} point(s) not collected yet: run \`taintlens experiment --collect ${dir}\` first, so that none is measured again`,
    );
  }
}
