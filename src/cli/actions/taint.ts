// `taintlens taint`'s action: runs the taint analysis and prints (or writes) its report.
import type { Command } from 'commander';
import { parseRunOptions, type RunCliOptions } from '../run-options.js';
import { parseInstrumentOptions, type InstrumentCliOptions } from '../instrument-options.js';
import { emit } from '../output.js';
import { passGuestStreams } from '../guest-streams.js';
import { checkOutputFile, writeFileAtomic, writeJsonAtomic } from '../../util/atomic-write.js';
import { loadLibrary, mergeLibraries, shippedLibraries } from '../../taint/library.js';
import { perfTaintJson, scorepFilter } from '../../taint/exports.js';
import { renderTaintReport, renderTaintSummary } from '../../taint/text.js';
import { tableLayout, type LayoutCliOptions } from '../layout-options.js';
import { proseWidth } from '../../report/terminal.js';
import { parseShadowOption } from '../shadow-option.js';
import {
  IMPLICIT_FLOWS,
  POINTER_LABELS,
  type ImplicitFlow,
  type PointerLabels,
} from '../../../instrument/passes/taint-layout.js';
import { UserError } from '../../util/errors.js';
import { rankNote } from '../../taint/rank-note.js';
import { topInForce } from '../top-option.js';
import { analyzeTaint, isLossWarning, parseParamSpec } from '../../taint/analyze.js';
import { readWasmFile } from '../../../instrument/wasm-file.js';
import { COVERAGE_MODES, type CoverageMode } from '../../taint/coverage-mode.js';
import { functionListText } from '../../taint/function-list.js';

/** The value of an option with a fixed set of values; a usage error (exit 2) naming them otherwise. */
function parseChoice<T extends string>(flag: string, choices: readonly T[], text: string, joiner = ', '): T {
  const found = choices.find((choice) => choice === text);
  if (!found) throw new UserError(`${flag} must be ${choices.join(joiner)}, got '${text}'`, 2);
  return found;
}

interface TaintCliOptions extends RunCliOptions, InstrumentCliOptions, LayoutCliOptions {
  param: string[];
  library: string[];
  output?: string;
  scorepFilter?: string;
  perfTaintJson?: string;
  all?: boolean;
  top?: number;
  shadow: string;
  implicitFlow: string;
  pointerLabels: string;
  coverage: string;
  instrumentedFunctions?: string;
}

export async function taintAction(file: string, options: TaintCliOptions, command: Command): Promise<void> {
  const run = parseRunOptions(options, command.args.slice(1), 'virtual');
  const params = options.param.map(parseParamSpec);
  const userLibraries = options.library.map(loadLibrary);
  const instrument = parseInstrumentOptions(options);
  const granularity = parseShadowOption(options.shadow);
  for (const output of [options.output, options.scorepFilter, options.perfTaintJson, options.instrumentedFunctions])
    if (output) checkOutputFile(output);
  const implicitFlow: ImplicitFlow = parseChoice('--implicit-flow', IMPLICIT_FLOWS, options.implicitFlow);
  const pointerLabels: PointerLabels = parseChoice('--pointer-labels', POINTER_LABELS, options.pointerLabels, ' or ');
  const coverage: CoverageMode = parseChoice('--coverage', COVERAGE_MODES, options.coverage);
  const bytes = readWasmFile(file);
  const libraries = [...shippedLibraries(bytes), ...userLibraries];
  const { report, sites, instrumentedFunctions, coldFunctions } = await analyzeTaint({
    file,
    bytes,
    invoke: run.invoke,
    args: run.args,
    argv: run.argv,
    repeat: run.repeat,
    timeoutMs: run.timeoutMs,
    wasi: run.wasi,
    params,
    library: mergeLibraries(...libraries),
    instrument,
    ...(granularity ? { granularity } : {}),
    implicitFlow,
    pointerLabels,
    coverage,
    log: (line) => process.stderr.write(`${line}\n`),
    ...(run.ranks !== undefined ? { ranks: run.ranks } : {}),
  });
  if (options.output) writeJsonAtomic(options.output, report);
  if (options.scorepFilter) writeFileAtomic(options.scorepFilter, scorepFilter(report));
  if (options.perfTaintJson) writeJsonAtomic(options.perfTaintJson, perfTaintJson(report));
  // The list `instrument --mode taint --functions` reads: the same instrumentation without the runs.
  if (options.instrumentedFunctions) {
    const names = instrumentedFunctions ?? sites.functions.map((f) => f.name).sort();
    writeFileAtomic(options.instrumentedFunctions, functionListText(names, coldFunctions));
  }
  passGuestStreams(run.json, report);
  const output = options.output;
  emit(
    run.json,
    report,
    () =>
      output !== undefined
        ? renderTaintSummary(report, output)
        : renderTaintReport(
            report,
            options.all === true,
            topInForce(options),
            tableLayout(options),
            options.wide ? Infinity : proseWidth(),
          ) + rankNote(report),
    report.warnings.filter(isLossWarning),
  );
}
