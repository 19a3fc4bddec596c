// The SLURM side of `taintlens experiment`: `SPEC --slurm --out DIR` submits a job array,
// `--status DIR` reports it, `--collect DIR` merges its results, and `--slurm-task RECORD` is what
// each array task runs (the job script calls it).
import { emit } from '../output.js';
import { renderTable } from '../../report/table.js';
import { outputWidth } from '../../report/terminal.js';
import { UserError } from '../../util/errors.js';
import { schemaId } from '../../util/schema.js';
import type { ExperimentDefinition } from '../../experiment/experiment.js';
import { submitCampaign } from '../../experiment/slurm/submit.js';
import { campaignStatus, POINT_STATES, type TaskStatus } from '../../experiment/slurm/status.js';
import { describePoint } from '../../experiment/campaign.js';
import { collectCampaign } from '../../experiment/slurm/collect.js';
import { runSlurmTask, taskIndexFromEnvironment } from '../../experiment/slurm/task.js';

export interface SlurmCliOptions {
  partition?: string;
  time?: string;
  chunk?: string;
  json?: boolean;
}

export function parseChunk(raw: string | undefined): number {
  const chunk = raw === undefined ? 1 : Number(raw);
  if (!Number.isInteger(chunk) || chunk < 1) throw new UserError(`--chunk must be a whole number ≥ 1, got '${raw}'`, 2);
  return chunk;
}

export async function submitToSlurm(
  def: ExperimentDefinition,
  spec: string,
  out: { dir: string; measurements: string },
  jobs: number,
  options: SlurmCliOptions,
): Promise<void> {
  const submission = await submitCampaign(def, {
    dir: out.dir,
    spec,
    measurements: out.measurements,
    partition: options.partition ?? null,
    time: options.time ?? null,
    chunk: parseChunk(options.chunk),
    jobs,
  });
  const { selection, design, ...counts } = submission;
  emit(
    options.json === true,
    {
      schema: schemaId('slurm-submit'),
      spec,
      out: out.dir,
      ...counts,
      mode: selection.mode,
      instrumentedFunctions: selection.functions?.length ?? 0,
      design: { kind: design.kind, reason: design.reason, points: design.points.length, gridPoints: design.gridPoints },
    },
    () => {
      const lines = [
        `design: ${design.reason}; ${design.points.length} point(s): ${counts.done} measured, ${counts.queued} queued`,
      ];
      if (submission.round === null) lines.push('nothing to submit: every point is measured or queued');
      else {
        lines.push(
          `round ${submission.round}: job ${submission.jobId}, ${counts.tasks} array task(s) for ${counts.submitted} point(s)${counts.resubmitted ? ` (${counts.resubmitted} left by cancelled or failed tasks)` : ''}`,
        );
      }
      lines.push(
        `follow it with \`taintlens experiment --status ${out.dir}\`; merge with \`taintlens experiment --collect ${out.dir}\``,
      );
      return lines.join('\n');
    },
  );
}

export async function showSlurmStatus(dir: string, json: boolean): Promise<void> {
  const status = campaignStatus(dir);
  emit(
    json,
    {
      schema: schemaId('slurm-status'),
      dir,
      queue: status.queue,
      counts: status.counts,
      rounds: status.rounds.map((r) => ({
        round: r.round,
        jobId: r.jobId,
        submitted: r.submitted,
        tasks: r.tasks.length,
      })),
      tasks: status.tasks,
      points: status.points,
    },
    () => {
      const counted = POINT_STATES.filter((s) => status.counts[s] > 0).map((s) => `${status.counts[s]} ${s}`);
      const lines = [`${dir}: ${status.points.length} point(s): ${counted.join(', ')}`];
      if (!status.queue) lines.push('squeue is not on PATH: tasks not finished are shown as failed');
      lines.push(
        renderTable(
          status.tasks,
          [
            { header: 'task', value: (t: TaskStatus) => t.id ?? `${t.round}/${t.task}` },
            { header: 'round', value: (t) => t.round, align: 'right' },
            { header: 'state', value: (t) => t.state },
            { header: 'points', value: (t) => `${t.done}/${t.points}`, align: 'right' },
            {
              header: 'detail',
              value: (t) =>
                t.resubmittedIn !== null ? `${t.detail}; resubmitted in round ${t.resubmittedIn}` : t.detail,
              shrink: 'wrap',
            },
          ],
          { width: outputWidth() },
        ),
      );
      const open = status.points.filter((p) => p.state !== 'done');
      if (open.length > 0 && open.length <= 12)
        lines.push('', 'not measured yet:', ...open.map((p) => `  ${describePoint(p.params)}: ${p.state}`));
      return lines.join('\n');
    },
  );
}

export async function collectSlurm(dir: string, json: boolean): Promise<void> {
  const collection = collectCampaign(dir);
  emit(json, { schema: schemaId('slurm-collect'), dir, ...collection }, () =>
    [
      `${collection.measurements}: ${collection.collected} point(s) collected (${collection.lines} line(s)), ${collection.already} already there; ${collection.points} point(s) in all`,
      collection.missing > 0
        ? `${collection.missing} point(s) of the design are not measured yet: see --status, submit again with --slurm`
        : 'every point of the design is measured',
      `${collection.summary} written`,
    ].join('\n'),
  );
}

export async function runSlurmArrayTask(record: string, json: boolean): Promise<void> {
  const index = taskIndexFromEnvironment();
  const summary = await runSlurmTask(record, index);
  emit(
    json,
    { schema: schemaId('slurm-task'), record, task: index, ...summary },
    () => `task ${index}: ${summary.output}: ${summary.measured} point(s) measured, ${summary.resumed} already there`,
  );
}
