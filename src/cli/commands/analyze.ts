// `taintlens analyze MODULE --config analysis.json [--out DIR]`: the whole analysis in one command
// (taint → experiment → models → blame, overhead) and its report: a terminal summary,
// DIR/report.json and a self-contained DIR/report.html.
import type { Command } from 'commander';
import { onDemand } from '../on-demand.js';
import { addShadowOption } from '../shadow-option.js';
import { addWasiOptions } from '../wasi-options.js';
import { addContextTreeOption } from '../instrument-options.js';

export function registerAnalyze(program: Command): void {
  addContextTreeOption(
    addWasiOptions(
      addShadowOption(program.command('analyze <module>'))
        .description(
          'the whole analysis from one config: taint run and parameter proposal, taint-guided experiment, models with the taint prior ranked at the target, blame, overhead; writes DIR/report.json and a self-contained DIR/report.html',
        )
        .requiredOption('--config <file>', 'analysis config (JSON; see docs/analyze.md)')
        .option(
          '--out <dir>',
          'folder for the report and the intermediate results; an interrupted analysis resumes in it',
          'taintlens-analysis',
        )
        .option('--json', 'print report.json instead of the summary')
        .option('--wide', 'do not shorten call paths or fit the table to the terminal width'),
    ),
  ).action(onDemand(async () => (await import('../actions/analyze.js')).analyzeAction));
}
