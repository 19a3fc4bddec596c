// `taintlens analyze MODULE --config analysis.json [--out DIR]`: the whole analysis in one command
// (taint → experiment → models → blame, overhead) and its report: a terminal summary,
// DIR/report.json and a self-contained DIR/report.html.
import type { Command } from 'commander';
import { emit } from '../output.js';
import { outputWidth } from '../../report/terminal.js';

import { addWasiOptions, runHostOf, type WasiCliOptions } from '../wasi-options.js';
import { addContextTreeOption, parseContextTreeBytes } from '../instrument-options.js';

interface AnalyzeCliOptions extends WasiCliOptions {
  contextTree?: string;
  config: string;
  out: string;
  json?: boolean;
}

export function registerAnalyze(program: Command): void {
  addContextTreeOption(addWasiOptions(program.command('analyze <module>')
    .description('the whole analysis from one config: taint run and parameter proposal, taint-guided experiment, models with the taint prior ranked at the target, blame, overhead; writes DIR/report.json and a self-contained DIR/report.html')
    .requiredOption('--config <file>', 'analysis config (JSON; see docs/analyze.md)')
    .option('--out <dir>', 'folder for the report and the intermediate results; an interrupted analysis resumes in it', 'taintlens-analysis')
    .option('--json', 'print report.json instead of the summary')))
    .action(async (file: string, options: AnalyzeCliOptions) => {
      const { readAnalysisConfig } = await import('../../analyze/config.js');
      const { readWasmFile } = await import('../../../instrument/module-io.js');
      const { refuseInstrumented } = await import('../../../instrument/instrumented.js');
      const { prepareExperimentDir } = await import('../../experiment/experiment-dir.js');
      const { analyze } = await import('../../analyze/analyze.js');
      const { claimAnalysisDir } = await import('../../analyze/dir-identity.js');
      const { renderSummary } = await import('../../analyze/summary.js');
      const bytes = readWasmFile(file);
      refuseInstrumented(bytes, file);
      const config = readAnalysisConfig(options.config);
      prepareExperimentDir(options.out);
      claimAnalysisDir(options.out, file, bytes, config);
      const { report, files } = await analyze({
        file, bytes, config, dir: options.out, showProgress: options.json !== true && process.stderr.isTTY === true,
        host: runHostOf(options, parseContextTreeBytes(options)),
      });
      emit(options.json === true, report, () => renderSummary(report, files, outputWidth()));
    });
}
