// `taintlens analyze`'s action: the whole analysis from one config, its summary and report files.
import { runHostOf, type WasiCliOptions } from '../wasi-options.js';
import { parseContextTreeBytes } from '../instrument-options.js';
import { emit } from '../output.js';
import { tableLayout, type LayoutCliOptions } from '../layout-options.js';
import { readAnalysisConfig } from '../../analyze/config.js';
import { readWasmFile } from '../../../instrument/wasm-file.js';
import { refuseInstrumented } from '../../../instrument/instrumented.js';
import { prepareExperimentDir } from '../../experiment/experiment-dir.js';
import { analyze } from '../../analyze/analyze.js';
import { claimAnalysisDir } from '../../analyze/dir-identity.js';
import { renderSummary } from '../../analyze/summary.js';
import { interruptible } from '../interrupt.js';
import { keptPoints } from '../../experiment/resume.js';
import { join } from 'node:path';
import { parseShadowOption } from '../shadow-option.js';

interface AnalyzeCliOptions extends LayoutCliOptions, WasiCliOptions {
  contextTree?: string;
  config: string;
  out: string;
  json?: boolean;
  shadow: string;
}

export async function analyzeAction(file: string, options: AnalyzeCliOptions): Promise<void> {
  const shadow = parseShadowOption(options.shadow);
  const bytes = readWasmFile(file);
  refuseInstrumented(bytes, file);
  const config = readAnalysisConfig(options.config);
  prepareExperimentDir(options.out);
  claimAnalysisDir(options.out, file, bytes, config);
  const kept = () =>
    `the finished steps and ${keptPoints(join(options.out, 'measurements.jsonl'))} measured point(s) are kept in ${options.out}; run the same command again to resume`;
  const { report, files } = await interruptible(kept, () =>
    analyze({
      file,
      bytes,
      config,
      dir: options.out,
      ...(shadow ? { shadow } : {}),
      host: runHostOf(options, parseContextTreeBytes(options)),
      showProgress: options.json !== true && process.stderr.isTTY === true,
    }),
  );
  emit(options.json === true, report, () => renderSummary(report, files, tableLayout(options)));
}
