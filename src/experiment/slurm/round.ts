// A SLURM campaign's records under DIR/slurm/: each `experiment SPEC --slurm` that submits work is
// one round, a job array whose task i measures the points `tasks[i]` into its own files:
//   round-R.json                 this record: the campaign (identity, regions, design), the points
//                                of every task and, once sbatch accepted it, the job id
//   round-R.sh                   the job script sbatch ran
//   round-R/task-I.jsonl         the task's measurements (+ .campaign.json, its identity), written
//                                by the ordinary campaign runner: one writer per file, resumable
//   round-R/task-I.points.jsonl  the task's per-point region statistics
//   round-R/task-I.log           its stdout and stderr (sbatch --output)
//   round-R/task-I.state         "exit N" when it ended, "cancelled" when SLURM signalled it
// Tasks never share a file, so no lock is needed (file locks are unreliable on the network file
// systems clusters share); `--collect` merges the task files into DIR/measurements.jsonl.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileError } from '../../util/errors.js';
import { writeJsonAtomic } from '../../util/atomic-write.js';
import type { CampaignIdentity } from '../identity.js';
import type { GridPoint } from '../grid.js';
import type { ExperimentDefinition } from '../experiment.js';
import type { Design } from '../design.js';
import type { RegionSelection } from '../modes.js';

export const ROUND_SCHEMA = 'taintlens/slurm-round@1';

/** The experiment as each task runs it: no spec, no taint run, the module by its absolute path. */
export interface TaskDefinition extends Omit<ExperimentDefinition, 'file' | 'bytes' | 'taint' | 'design'> {
  module: string;
  regions: string[] | null;
  /** Points a task measures at once (its --cpus-per-task). */
  jobs: number;
}

export interface RoundRecord {
  schema: typeof ROUND_SCHEMA;
  round: number;
  /** sbatch's job id; null until sbatch accepted the array. */
  jobId: string | null;
  submitted: string;
  spec: string;
  identity: CampaignIdentity;
  definition: TaskDefinition;
  selection: RegionSelection;
  design: Design;
  sbatch: { partition: string | null; time: string | null };
  /** The points of each array task, by task index. */
  tasks: GridPoint[][];
}

export interface TaskFiles {
  measurements: string;
  points: string;
  log: string;
  state: string;
}

export function slurmDir(dir: string): string {
  return join(dir, 'slurm');
}

export function roundRecordFile(dir: string, round: number): string {
  return join(slurmDir(dir), `round-${round}.json`);
}

export function roundScriptFile(dir: string, round: number): string {
  return join(slurmDir(dir), `round-${round}.sh`);
}

export function taskFolder(dir: string, round: number): string {
  return join(slurmDir(dir), `round-${round}`);
}

export function taskFiles(dir: string, round: number, task: number | string): TaskFiles {
  const base = join(taskFolder(dir, round), `task-${task}`);
  return { measurements: `${base}.jsonl`, points: `${base}.points.jsonl`, log: `${base}.log`, state: `${base}.state` };
}

/** The campaign folder a round record lives in (DIR of DIR/slurm/round-R.json). */
export function campaignDirOf(recordFile: string): string {
  return join(recordFile, '..', '..');
}

export function writeRound(dir: string, record: RoundRecord): void {
  writeJsonAtomic(roundRecordFile(dir, record.round), record);
}

export function readRound(file: string): RoundRecord {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fileError(
      file,
      code === 'ENOENT' ? 'no such SLURM round record' : 'not valid JSON: this SLURM round record is damaged',
    );
  }
  const record = value as Partial<RoundRecord> | null;
  if (typeof record !== 'object' || record === null || record.schema !== ROUND_SCHEMA || !Array.isArray(record.tasks)) {
    throw fileError(file, `not a SLURM round record (${ROUND_SCHEMA})`);
  }
  return record as RoundRecord;
}

/** The rounds submitted into DIR so far, oldest first. */
export function readRounds(dir: string): RoundRecord[] {
  const folder = slurmDir(dir);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .map((name) => /^round-(\d+)\.json$/.exec(name))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b)
    .map((round) => readRound(roundRecordFile(dir, round)));
}

/** `JOB_TASK`, the array task's id as squeue, sacct and scancel name it. */
export function arrayTaskId(record: RoundRecord, task: number): string | null {
  return record.jobId === null ? null : `${record.jobId}_${task}`;
}
