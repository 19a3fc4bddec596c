// `taintlens experiment SPEC --slurm --out DIR`: plans the campaign here (the mode's regions and the
// design, from runs at the base point), then submits the points not yet measured and not queued
// as one SLURM job array, a chunk of points per task. Run again, it submits what cancelled or failed
// tasks left (each point whose lines are not in a task file or the store), and nothing else.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { resolve } from 'node:path';
import { UserError } from '../../util/errors.js';
import { packageRoot } from '../../util/package-root.js';
import { campaignOf, planExperiment, type ExperimentDefinition } from '../experiment.js';
import { identityOf } from '../identity.js';
import { prepareOutput } from '../resume.js';
import { pointKey, type GridPoint } from '../grid.js';
import type { Design } from '../design.js';
import type { RegionSelection } from '../modes.js';
import { sbatch } from './queue.js';
import { campaignStatus, type PointState } from './status.js';
import { checkRounds } from './measured.js';
import {
  readRounds,
  roundRecordFile,
  roundScriptFile,
  taskFiles,
  taskFolder,
  writeRound,
  ROUND_SCHEMA,
  type RoundRecord,
} from './round.js';

/** SLURM's default MaxArraySize is 1001: larger designs get bigger chunks. */
const MAX_ARRAY_TASKS = 1000;

export interface SubmitOptions {
  dir: string;
  spec: string;
  measurements: string;
  partition: string | null;
  time: string | null;
  /** Points per array task. */
  chunk: number;
  /** Points each task measures at once (its CPUs). */
  jobs: number;
}

export interface Submission {
  selection: RegionSelection;
  design: Design;
  /** The round submitted now; null when nothing was left to submit. */
  round: number | null;
  jobId: string | null;
  tasks: number;
  submitted: number;
  /** Of those, points an earlier cancelled or failed task left. */
  resubmitted: number;
  done: number;
  queued: number;
}

export async function submitCampaign(def: ExperimentDefinition, options: SubmitOptions): Promise<Submission> {
  // A task's record is plain JSON read on another node: folders and input files would need copying there.
  if (def.wasi)
    throw new UserError(`${options.spec}: the spec's dir, env and stdin fields run locally only, not with --slurm`);
  const { selection, design } = await planExperiment(def);
  const identity = identityOf(campaignOf(def, selection.functions));
  const rounds = readRounds(options.dir);
  checkRounds(options.dir, rounds, identity);
  const stored = prepareOutput(options.measurements, identity);
  const states = new Map<string, PointState>();
  if (rounds.length > 0) {
    const status = campaignStatus(options.dir);
    if (!status.queue)
      throw new UserError(
        'squeue: not found on PATH: without it the tasks still queued are unknown, and resubmitting could measure points twice',
      );
    for (const point of status.points) states.set(pointKey(point.params), point.state);
  }
  for (const key of stored) states.set(key, 'done');

  const todo = design.points.filter(
    (p) => !['done', 'running', 'pending'].includes(states.get(pointKey(p)) ?? 'unsubmitted'),
  );
  const count = (wanted: PointState[]) =>
    design.points.filter((p) => wanted.includes(states.get(pointKey(p)) ?? 'unsubmitted')).length;
  const base = {
    selection,
    design,
    done: count(['done']),
    queued: count(['running', 'pending']),
    resubmitted: count(['failed', 'cancelled']),
  };
  if (todo.length === 0) return { ...base, round: null, jobId: null, tasks: 0, submitted: 0, resubmitted: 0 };

  const chunk = Math.max(options.chunk, Math.ceil(todo.length / MAX_ARRAY_TASKS));
  const tasks: GridPoint[][] = [];
  for (let i = 0; i < todo.length; i += chunk) tasks.push(todo.slice(i, i + chunk));
  const round = (rounds.at(-1)?.round ?? 0) + 1;
  const { file, bytes: _bytes, taint: _taint, design: _design, wasi: _wasi, profiler: _profiler, ...experiment } = def;
  const record: RoundRecord = {
    schema: ROUND_SCHEMA,
    round,
    jobId: null,
    submitted: new Date().toISOString(),
    spec: resolve(options.spec),
    identity,
    definition: { ...experiment, module: resolve(file), regions: selection.functions, jobs: options.jobs },
    selection,
    design,
    sbatch: { partition: options.partition, time: options.time },
    tasks,
  };
  const dir = resolve(options.dir);
  const script = roundScriptFile(dir, round);
  mkdirSync(taskFolder(dir, round), { recursive: true });
  writeRound(dir, record);
  writeFileAtomic(script, jobScript(roundRecordFile(dir, round), taskFolder(dir, round)));
  chmodSync(script, 0o755);
  try {
    record.jobId = sbatch({
      script,
      tasks: tasks.length,
      name: `taintlens-${round}`,
      output: taskFiles(dir, round, '%a').log,
      cpusPerTask: options.jobs,
      partition: options.partition,
      time: options.time,
    });
  } catch (error) {
    // Nothing half-written: a round sbatch refused leaves no trace.
    for (const file of [script, roundRecordFile(dir, round), taskFolder(dir, round)])
      rmSync(file, { recursive: true, force: true });
    throw error;
  }
  writeRound(dir, record);
  return { ...base, round, jobId: record.jobId, tasks: tasks.length, submitted: todo.length };
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The array task: this Node and this Taintlens measure the task's points. Its state file says how
 * it ended — the exit code, or "cancelled" when SLURM signalled it (scancel, the time limit) — for
 * `--status`, since a cluster without accounting forgets a job that left the queue.
 */
function jobScript(record: string, folder: string): string {
  const root = packageRoot();
  if (!root) throw new UserError('cannot find the taintlens package this command runs from, for the job script');
  const cli = resolve(root.dir, 'bin', 'taintlens.js');
  return [
    '#!/bin/bash',
    '# Written by `taintlens experiment SPEC --slurm`; submitted with sbatch --array (one task per chunk of points).',
    `state=${quote(folder)}/task-"$SLURM_ARRAY_TASK_ID".state`,
    'rm -f "$state"',
    `${quote(process.execPath)} ${quote(cli)} experiment --slurm-task ${quote(record)} &`,
    'child=$!',
    'trap \'echo cancelled > "$state"; kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143\' TERM INT',
    'wait "$child"',
    'code=$?',
    'echo "exit $code" > "$state"',
    'exit "$code"',
    '',
  ].join('\n');
}
