// `taintlens model <measurements>`: performance models per call path, optionally restricted by the
// taint report, extrapolated to a target point, ranked, and checked for scalability bugs.
import { Command, Option } from 'commander';
import { AGGREGATES } from '../../model/aggregate.js';
import { FIT_MODES, type FitMode } from '../../model/fit-modes.js';
import type { Aggregate } from '../../model/types.js';
import { onDemand } from '../on-demand.js';

export function registerModel(program: Command): void {
  program
    .command('model')
    .description(
      'Performance models per call path (PMNF search), with an optional taint prior, extrapolation and ranking',
    )
    .argument('<measurements>', 'measurements: Extra-P text (.txt), JSON Lines (.jsonl) or Extra-P JSON (.json)')
    .option(
      '--taint <file>',
      'taint report (taintlens taint --json) restricting each call path to its parameters and loop structure',
    )
    .option('--target <point>', 'extrapolate to this point, e.g. p=1024,n=4096 (default: the largest measured values)')
    .option('--metric <name>', 'model only this metric (default: every metric)')
    .addOption(
      new Option('--aggregate <how>', 'how repetitions combine').choices(AGGREGATES as Aggregate[]).default('median'),
    )
    .addOption(
      new Option(
        '--fit <how>',
        'how shapes are chosen: auto (minimax over the repetitions where they show bounded noise, else least squares)',
      )
        .choices(FIT_MODES as FitMode[])
        .default('auto'),
    )
    .option(
      '--growth-threshold <spec>',
      'flag growth worse than x^t: "auto" (default: faster than the main work), "1" (linear), or per parameter "n=2,p=1"',
    )
    .addOption(
      new Option('--format <format>', 'input format (default: by extension and content)').choices([
        'extrap-text',
        'jsonl',
        'extrap-json',
      ]),
    )
    .option('--json', 'print the models as JSON (schema taintlens/models@1)')
    .option('-o, --output <file>', 'also write the JSON document to this file (atomically)')
    .option('--wide', 'show call paths whole; do not fit the table to the terminal width')
    .option('--all', 'model the call paths of library code too (by default they are folded into their callers)')
    .action(onDemand(async () => (await import('../actions/model.js')).modelAction));
}
