// SLURM's client commands, each turned into a value or one clear line: sbatch (submit an array),
// squeue (what is still pending or running) and sacct (how a task that left the queue ended, when
// the cluster keeps accounting; most small clusters and our test cluster do not).
import { spawnSync } from 'node:child_process';
import { UserError } from '../../util/errors.js';

function runClient(command: string, args: string[]): { ok: boolean; stdout: string; stderr: string; missing: boolean } {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return {
    ok: !result.error && result.status === 0,
    stdout: result.stdout ?? '',
    stderr: result.stderr ?? '',
    missing,
  };
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

export interface SbatchRequest {
  script: string;
  /** Array indices 0..tasks-1. */
  tasks: number;
  name: string;
  /** sbatch's --output pattern (%a: the array index). */
  output: string;
  cpusPerTask: number;
  partition: string | null;
  time: string | null;
}

/** Submits the job array; returns its job id. */
export function sbatch(request: SbatchRequest): string {
  const args = [
    '--parsable',
    `--array=0-${request.tasks - 1}`,
    `--job-name=${request.name}`,
    `--output=${request.output}`,
    `--cpus-per-task=${request.cpusPerTask}`,
    ...(request.partition !== null ? [`--partition=${request.partition}`] : []),
    ...(request.time !== null ? [`--time=${request.time}`] : []),
    request.script,
  ];
  const result = runClient('sbatch', args);
  if (result.missing)
    throw new UserError(
      "sbatch: not found on PATH: --slurm submits with SLURM's sbatch (run it where SLURM's client commands are installed)",
    );
  if (!result.ok)
    throw new UserError(
      `sbatch refused the job array: ${firstLine(result.stderr) || firstLine(result.stdout) || 'no reason given'}`,
    );
  // --parsable prints "JOBID" or "JOBID;CLUSTER"
  const jobId = firstLine(result.stdout).split(';')[0]!;
  if (!/^\d+$/.test(jobId))
    throw new UserError(`sbatch: unexpected answer '${firstLine(result.stdout)}' (expected a job id)`);
  return jobId;
}

/** `JOB_TASK` → squeue's state (PENDING, RUNNING, ...) of the array tasks still queued; null without squeue. */
export function queuedTasks(jobIds: string[]): Map<string, string> | null {
  const states = new Map<string, string>();
  if (jobIds.length === 0) return states;
  const result = runClient('squeue', ['-h', '-r', '-j', jobIds.join(','), '-o', '%i|%T']);
  if (result.missing) return null;
  // Jobs SLURM no longer knows: "Invalid job id specified" (and nothing is queued).
  if (!result.ok) {
    if (/invalid job id/i.test(result.stderr)) return states;
    throw new UserError(`squeue failed: ${firstLine(result.stderr) || 'no reason given'}`);
  }
  for (const line of result.stdout.split('\n')) {
    const [id, state] = line.trim().split('|');
    if (id && state) states.set(id, state);
  }
  return states;
}

/** `JOB_TASK` → sacct's final state (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...); empty without accounting. */
export function accountedTasks(jobIds: string[]): Map<string, string> {
  const states = new Map<string, string>();
  if (jobIds.length === 0) return states;
  const result = runClient('sacct', ['-n', '-P', '-X', '-j', jobIds.join(','), '-o', 'JobID,State']);
  if (!result.ok) return states;
  for (const line of result.stdout.split('\n')) {
    const [id, state] = line.trim().split('|');
    if (id && state) states.set(id, state.split(' ')[0]!);
  }
  return states;
}
