// Where a SLURM campaign stands, per array task and per point: done (measured, in the store or a
// task's file), pending or running (squeue), cancelled or failed (gone from the queue with points
// missing: the task's state file, else sacct, says which), unsubmitted (in the design, in no task).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pointKey, type GridPoint } from '../grid.js';
import { fileError } from '../../util/errors.js';
import { accountedTasks, queuedTasks } from './queue.js';
import { checkRounds, pointsInFile, taskPoints } from './measured.js';
import { arrayTaskId, readRounds, taskFiles, type RoundRecord } from './round.js';

export type TaskState = 'done' | 'pending' | 'running' | 'cancelled' | 'failed';
export type PointState = TaskState | 'unsubmitted';
export const POINT_STATES: readonly PointState[] = ['done', 'running', 'pending', 'cancelled', 'failed', 'unsubmitted'];

export interface TaskStatus {
  round: number;
  task: number;
  /** JOB_TASK, as squeue and scancel name it. */
  id: string | null;
  state: TaskState;
  detail: string;
  points: number;
  done: number;
  /** The later round its missing points went to, when they were resubmitted. */
  resubmittedIn: number | null;
}

export interface PointStatus {
  params: GridPoint;
  state: PointState;
  /** The task that measured it or, when it is not measured, the last task given it. */
  round: number | null;
  task: number | null;
}

export interface CampaignStatus {
  dir: string;
  rounds: RoundRecord[];
  tasks: TaskStatus[];
  points: PointStatus[];
  counts: Record<PointState, number>;
  /** Whether squeue answered (without it no task can be told pending or running). */
  queue: boolean;
}

const RUNNING = new Set(['RUNNING', 'COMPLETING', 'CONFIGURING', 'SUSPENDED', 'STAGE_OUT', 'SIGNALING', 'RESIZING']);

/** DIR's rounds, oldest first, all of one campaign; an error when DIR holds none. */
export function campaignRounds(dir: string): RoundRecord[] {
  const rounds = readRounds(dir);
  if (rounds.length === 0) {
    throw fileError(
      dir,
      `no SLURM campaign here (no ${join(dir, 'slurm', 'round-1.json')}): submit one with \`taintlens experiment SPEC --slurm --out ${dir}\``,
    );
  }
  checkRounds(dir, rounds, rounds.at(-1)!.identity);
  return rounds;
}

export function campaignStatus(dir: string): CampaignStatus {
  const rounds = campaignRounds(dir);
  const latest = rounds.at(-1)!;
  const jobIds = rounds.flatMap((r) => (r.jobId === null ? [] : [r.jobId]));
  const queued = queuedTasks(jobIds);
  const accounted = accountedTasks(jobIds);

  // Measured: the store first, then each task's file.
  const measuredBy = new Map<string, { round: number | null; task: number | null }>();
  for (const key of pointsInFile(join(dir, 'measurements.jsonl')).keys())
    measuredBy.set(key, { round: null, task: null });
  for (const record of rounds) {
    record.tasks.forEach((_, task) => {
      for (const key of taskPoints(dir, record, task, latest.identity).keys())
        if (!measuredBy.has(key)) measuredBy.set(key, { round: record.round, task });
    });
  }

  const tasks: TaskStatus[] = [];
  const lastTaskOf = new Map<string, TaskStatus>();
  rounds.forEach((record) =>
    record.tasks.forEach((points, task) => {
      const id = arrayTaskId(record, task);
      const done = points.filter((p) => measuredBy.has(pointKey(p))).length;
      const status: TaskStatus = {
        round: record.round,
        task,
        id,
        points: points.length,
        done,
        resubmittedIn: null,
        ...taskState(dir, record, task, done === points.length, queued, accounted),
      };
      for (const point of points) {
        const key = pointKey(point);
        const earlier = lastTaskOf.get(key);
        // A point goes to a later round only when its task left it unmeasured.
        if (earlier && earlier !== status) earlier.resubmittedIn = record.round;
        lastTaskOf.set(key, status);
      }
      tasks.push(status);
    }),
  );

  const all = new Map<string, GridPoint>();
  for (const point of latest.design.points) all.set(pointKey(point), point);
  for (const record of rounds)
    for (const points of record.tasks) for (const point of points) all.set(pointKey(point), point);
  const points: PointStatus[] = [...all].map(([key, params]) => {
    const measured = measuredBy.get(key);
    if (measured) return { params, state: 'done', ...measured };
    const task = lastTaskOf.get(key);
    return task
      ? { params, state: task.state === 'done' ? 'failed' : task.state, round: task.round, task: task.task }
      : { params, state: 'unsubmitted', round: null, task: null };
  });
  const counts = Object.fromEntries(POINT_STATES.map((s) => [s, points.filter((p) => p.state === s).length])) as Record<
    PointState,
    number
  >;
  return { dir, rounds, tasks, points, counts, queue: queued !== null };
}

function taskState(
  dir: string,
  record: RoundRecord,
  task: number,
  complete: boolean,
  queued: Map<string, string> | null,
  accounted: Map<string, string>,
): { state: TaskState; detail: string } {
  const id = arrayTaskId(record, task);
  if (id === null) return { state: 'failed', detail: 'never submitted (sbatch did not answer)' };
  const inQueue = queued?.get(id);
  if (inQueue === 'PENDING') return { state: 'pending', detail: 'PENDING' };
  if (inQueue !== undefined && RUNNING.has(inQueue)) return { state: 'running', detail: inQueue };
  if (complete) return { state: 'done', detail: inQueue ?? 'all points measured' };
  if (queued === null) return { state: 'failed', detail: 'unknown: squeue is not on PATH' };
  const stateFile = taskFiles(dir, record.round, task).state;
  const ended = existsSync(stateFile) ? readFileSync(stateFile, 'utf8').trim() : '';
  const accountedState = accounted.get(id);
  if (ended === 'cancelled' || accountedState === 'CANCELLED' || inQueue === 'CANCELLED')
    return { state: 'cancelled', detail: 'cancelled (scancel or the time limit)' };
  if (ended.startsWith('exit'))
    return { state: 'failed', detail: `${ended}; see ${taskFiles(dir, record.round, task).log}` };
  if (accountedState) return { state: 'failed', detail: accountedState };
  return { state: 'failed', detail: inQueue ?? 'left the queue with points missing' };
}
