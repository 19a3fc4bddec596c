// One array task of a SLURM campaign (`taintlens experiment --slurm-task RECORD`, run by the job
// script): measures its points with the ordinary campaign runner into its own files, so a task that
// is resubmitted resumes where it stopped and no two tasks ever write the same file.
import { readWasmFile } from '../../../instrument/module-io.js';
import { fileError, UserError } from '../../util/errors.js';
import { runCampaign, type CampaignSummary } from '../campaign.js';
import { identityDifference, identityOf } from '../identity.js';
import { campaignOf } from '../experiment.js';
import { campaignDirOf, readRound, taskFiles } from './round.js';

export function taskIndexFromEnvironment(): number {
  const raw = process.env.SLURM_ARRAY_TASK_ID;
  const index = Number(raw);
  if (raw === undefined || raw === '' || !Number.isInteger(index) || index < 0) {
    throw new UserError('--slurm-task runs inside a SLURM job array: SLURM_ARRAY_TASK_ID is not set', 2);
  }
  return index;
}

export async function runSlurmTask(recordFile: string, index: number): Promise<CampaignSummary & { output: string }> {
  const record = readRound(recordFile);
  const points = record.tasks[index];
  if (!points)
    throw fileError(recordFile, `round ${record.round} has no task ${index} (tasks 0-${record.tasks.length - 1})`);
  const def = record.definition;
  const bytes = readWasmFile(def.module);
  const files = taskFiles(campaignDirOf(recordFile), record.round, index);
  const { module, regions, jobs, ...experiment } = def;
  const campaign = campaignOf({ ...experiment, file: module, bytes }, regions);
  const difference = identityDifference(record.identity, identityOf(campaign));
  if (difference) throw fileError(module, `changed since the campaign was submitted (${difference}): submit it again`);
  const summary = await runCampaign({
    ...campaign,
    jobs,
    points,
    output: files.measurements,
    statsOutput: files.points,
  });
  return { ...summary, output: files.measurements };
}
