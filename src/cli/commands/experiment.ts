// `taintlens experiment SPEC --out DIR`: the spec front end of the experiment engine; with --slurm
// it submits the campaign as a SLURM job array instead (experiment-slurm.ts).
import { Option, type Command } from 'commander';
import { addExperimentOptions } from '../experiment-options.js';
import { onDemand } from '../on-demand.js';
import { addWasiOptions } from '../wasi-options.js';
import { addContextTreeOption } from '../instrument-options.js';

export function registerExperiment(program: Command): void {
  addContextTreeOption(
    addWasiOptions(
      addExperimentOptions(
        program
          .command('experiment [spec]')
          .usage('SPEC --out DIR [--slurm [--partition P] [--time T] [--chunk N]] | --status DIR | --collect DIR')
          .description(
            'run the measurement campaign a JSON spec describes; writes DIR/measurements.jsonl (Extra-P JSON Lines), DIR/summary.json, the spec and the environment. With --slurm, submit it as a SLURM job array; --status and --collect follow and merge it',
          )
          .option('--out <dir>', 'folder for the results; an interrupted campaign in it resumes')
          .option(
            '--slurm',
            'submit the points not yet measured (or left by cancelled or failed tasks) as a SLURM job array with sbatch',
          )
          .option('--partition <name>', 'with --slurm: the SLURM partition (sbatch --partition)')
          .option('--time <limit>', 'with --slurm: time limit per array task (sbatch --time, e.g. 30 or 1:00:00)')
          .option('--chunk <n>', 'with --slurm: points per array task (default: 1)')
          .option(
            '--status <dir>',
            'report a SLURM campaign: each task and point done, pending, running, cancelled or failed',
          )
          .option(
            '--collect <dir>',
            'merge the points a SLURM campaign measured into DIR/measurements.jsonl, each exactly once',
          )
          .addOption(
            new Option('--slurm-task <record>', 'run one array task of a SLURM round (the job script does)').hideHelp(),
          )
          .option('--wide', 'do not shorten call paths or fit the tables to the terminal width')
          .option('--json', 'machine-readable output'),
        null,
      ),
    ),
  ).action(onDemand(async () => (await import('../actions/experiment.js')).experimentAction));
}
