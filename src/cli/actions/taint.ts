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

function parseImplicitFlow(text: string): ImplicitFlow {
  const found = IMPLICIT_FLOWS.find((f) => f === text);
  if (!found) throw new UserError(`--implicit-flow must be ${IMPLICIT_FLOWS.join(', ')}, got '${text}'`, 2);
  return found;
}

function parseCoverage(text: string): CoverageMode {
  const found = COVERAGE_MODES.find((m) => m === text);
  if (!found) throw new UserError(`--coverage must be ${COVERAGE_MODES.join(', ')}, got '${text}'`, 2);
  return found;
}

function parsePointerLabels(text: string): PointerLabels {
  const found = POINTER_LABELS.find((p) => p === text);
  if (!found) throw new UserError(`--pointer-labels must be ${POINTER_LABELS.join(' or ')}, got '${text}'`, 2);
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
}

export async function taintAction(file: string, options: TaintCliOptions, command: Command): Promise<void> {
  const run = parseRunOptions(options, command.args.slice(1), 'virtual');
  const params = options.param.map(parseParamSpec);
  const userLibraries = options.library.map(loadLibrary);
  const instrument = parseInstrumentOptions(options);
  const granularity = parseShadowOption(options.shadow);
  for (const output of [options.output, options.scorepFilter, options.perfTaintJson])
    if (output) checkOutputFile(output);
  const implicitFlow = parseImplicitFlow(options.implicitFlow);
  const pointerLabels = parsePointerLabels(options.pointerLabels);
  const coverage = parseCoverage(options.coverage);
  const bytes = readWasmFile(file);
  const libraries = [...shippedLibraries(bytes), ...userLibraries];
  const { report } = await analyzeTaint({
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
