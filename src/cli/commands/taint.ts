// `taintlens taint <module>`: which marked parameters drive each loop and function (dynamic taint
// analysis). Parameters are marked in the program (TAINTLENS_PARAM / param<T>) or from the command
// line (--param NAME=argK, NAME=global:EXPORT, NAME=argvK, NAME=env:VAR, NAME=file:PATH).
import type { Command } from 'commander';
import { addRunOptions, parseRunOptions, type RunCliOptions } from '../run-options.js';
import { addInstrumentOptions, parseInstrumentOptions, type InstrumentCliOptions } from '../instrument-options.js';
import { emit } from '../output.js';
import { passGuestStreams } from '../guest-streams.js';
import { checkOutputFile, writeFileAtomic, writeJsonAtomic } from '../../util/atomic-write.js';
import { loadLibrary, mergeLibraries, shippedLibraries } from '../../taint/library.js';
import { perfTaintJson, scorepFilter } from '../../taint/exports.js';
import { renderTaintReport } from '../../taint/text.js';
import { addShadowOption, parseShadowOption } from '../shadow-option.js';
import { POINTER_LABELS, type PointerLabels } from '../../../instrument/passes/taint-layout.js';
import { UserError } from '../../util/errors.js';
import { rankNote } from '../../taint/rank-note.js';
import { DEFAULT_TOP, parseTopCount, topInForce } from '../top-option.js';

function parsePointerLabels(text: string): PointerLabels {
  const found = POINTER_LABELS.find((p) => p === text);
  if (!found) throw new UserError(`--pointer-labels must be ${POINTER_LABELS.join(' or ')}, got '${text}'`, 2);
  return found;
}

function parseImplicitFlow(text: string): boolean {
  if (text !== 'on' && text !== 'off') throw new UserError(`--implicit-flow must be on or off, got '${text}'`, 2);
  return text === 'on';
}

interface TaintCliOptions extends RunCliOptions, InstrumentCliOptions {
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
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerTaint(program: Command): void {
  addInstrumentOptions(addRunOptions(addShadowOption(
    program.command('taint <module>')
      .description('dynamic taint analysis: which marked parameters drive each loop, function and branch')
      .usage('<module> [--invoke EXPORT] [--args a,b,...] [--param NAME=argK|argvK|global:EXPORT|env:VAR|file:PATH ...] [--library db.json] [--ranks P] [--top N] [--all] [--json] [-- argv...]')
      .option('--param <spec>', 'mark a parameter without changing the program: NAME=argK (argument K of the export, from 0), NAME=global:EXPORT, or for a WASI program NAME=argvK (argv[K] as C numbers it: argv1 is the first word after --), NAME=env:VAR, NAME=file:PATH (repeatable)', collect, [])
      .option('--library <file>', 'host-import database (JSON; see docs/taint.md), on top of the shipped WASI/AssemblyScript one (repeatable)', collect, [])
      .option('-o, --output <file>', 'also write the JSON report to FILE')
      .option('--scorep-filter <file>', 'write a Score-P filter that keeps only parameter-dependent functions')
      .option('--perf-taint-json <file>', "write Perf-Taint's JSON layout (for Extra-P's perf-taint reader)")
      .option('--top <n>', `show only the N rows of each table that matter most: parameter-dependent first, then by iterations, loops with their enclosing loops (default ${DEFAULT_TOP}, none with --all)`, parseTopCount)
      .option('--all', 'list every loop and function, also those not executed or pruned statically (the JSON report always has them all)')
      .option('--implicit-flow <mode>', 'on: data and control flow (values chosen under a tainted branch carry its label); off: data flow only (DFSan); loop exit conditions are sinks in both', 'on')
      .option('--pointer-labels <mode>', "a load's label: data (the labels of the bytes read) or join (also its address's label, DFSan's default)", 'data')),
  )).action(async (file: string, options: TaintCliOptions, command: Command) => {
    const { analyzeTaint, parseParamSpec } = await import('../../taint/analyze.js');
    const { readWasmFile } = await import('../../../instrument/module-io.js');
    const run = parseRunOptions(options, command.args.slice(1), 'virtual');
    const params = options.param.map(parseParamSpec);
    const userLibraries = options.library.map(loadLibrary);
    const instrument = parseInstrumentOptions(options);
    const granularity = parseShadowOption(options.shadow);
    for (const output of [options.output, options.scorepFilter, options.perfTaintJson]) if (output) checkOutputFile(output);
    const implicitFlow = parseImplicitFlow(options.implicitFlow);
    const pointerLabels = parsePointerLabels(options.pointerLabels);
    const bytes = readWasmFile(file);
    const libraries = [...shippedLibraries(bytes), ...userLibraries];
    const { report } = await analyzeTaint({
      file, bytes, invoke: run.invoke, args: run.args, argv: run.argv, repeat: run.repeat, timeoutMs: run.timeoutMs, wasi: run.wasi,
      params, library: mergeLibraries(...libraries), instrument, ...(granularity ? { granularity } : {}), implicitFlow, pointerLabels, ...(run.ranks !== undefined ? { ranks: run.ranks } : {}),
    });
    if (options.output) writeJsonAtomic(options.output, report);
    if (options.scorepFilter) writeFileAtomic(options.scorepFilter, scorepFilter(report));
    if (options.perfTaintJson) writeJsonAtomic(options.perfTaintJson, perfTaintJson(report));
    passGuestStreams(run.json, report);
    emit(run.json, report, () => renderTaintReport(report, options.all === true, topInForce(options)) + rankNote(report));
  });
}
