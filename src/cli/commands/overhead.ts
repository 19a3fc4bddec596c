// `taintlens overhead SPEC`: runtime of the spec's points under none, full, default and selective
// instrumentation, and the models each mode's data gives beside the instruction-count models.
import type { Command } from 'commander';
import { onDemand } from '../on-demand.js';
import { addWasiOptions } from '../wasi-options.js';
import { addContextTreeOption } from '../instrument-options.js';

export function registerOverhead(program: Command): void {
  addContextTreeOption(
    addWasiOptions(
      program
        .command('overhead <spec>')
        .description(
          "compare instrumentation modes on an experiment spec's points: runtime ÷ none, and whether each mode's models match the instruction counts",
        )
        .option('--rounds <r>', "alternating rounds (default: the spec's repetitions)")
        .option(
          '--json',
          'machine-readable output: {"modes":[{"mode","instrumentedFunctions","ratio"}],"models":{...}}',
        )
        .option('--wide', 'do not shorten call paths or fit the tables to the terminal width'),
    ),
  ).action(onDemand(async () => (await import('../actions/overhead.js')).overheadAction));
}
