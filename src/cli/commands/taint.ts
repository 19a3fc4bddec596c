// `taintlens taint <module>`: which marked parameters drive each loop and function (dynamic taint
// analysis). Parameters are marked in the program (TAINTLENS_PARAM / param<T>) or from the command
// line (--param NAME=argK, NAME=global:EXPORT, NAME=argvK, NAME=env:VAR, NAME=file:PATH).
import type { Command } from 'commander';
import { addRunOptions } from '../run-options.js';
import { addInstrumentOptions } from '../instrument-options.js';
import { DEFAULT_TOP, parseTopCount } from '../top-option.js';
import { onDemand } from '../on-demand.js';
import { addWideOption } from '../layout-options.js';
import { addShadowOption } from '../shadow-option.js';
import { DEFAULT_IMPLICIT_FLOW, DEFAULT_POINTER_LABELS } from '../../../instrument/passes/taint-semantics.js';
import { COVERAGE_MIN_BYTES } from '../../taint/coverage-mode.js';

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerTaint(program: Command): void {
  addWideOption(
    addInstrumentOptions(
      addRunOptions(
        addShadowOption(
          program
            .command('taint <module>')
            .description('dynamic taint analysis: which marked parameters drive each loop, function and branch')
            .usage(
              '<module> [--invoke EXPORT] [--args a,b,...] [--param NAME=argK|argvK|global:EXPORT|env:VAR|file:PATH ...] [--library db.json] [--ranks P] [--coverage auto|on|off] [--top N] [--all] [--wide] [--json] [-o FILE] [-- argv...]',
            )
            .option(
              '--param <spec>',
              'mark a parameter without changing the program: NAME=argK (argument K of the export, from 0), NAME=global:EXPORT, or for a WASI program NAME=argvK (argv[K] as C numbers it: argv1 is the first word after --), NAME=env:VAR, NAME=file:PATH (repeatable)',
              collect,
              [],
            )
            .option(
              '--library <file>',
              'host-import database (JSON; see docs/taint.md), on top of the shipped WASI/AssemblyScript one (repeatable)',
              collect,
              [],
            )
            .option(
              '-o, --output <file>',
              'write the JSON report to FILE and print only a summary (with --json: the report too)',
            )
            .option('--scorep-filter <file>', 'write a Score-P filter that keeps only parameter-dependent functions')
            .option('--perf-taint-json <file>', "write Perf-Taint's JSON layout (for Extra-P's perf-taint reader)")
            .option(
              '--instrumented-functions <file>',
              'write the functions the analysed run had instrumented (with coverage: those it entered), one per line, as `instrument --mode taint --functions` reads them',
            )
            .option(
              '--top <n>',
              `show only the N rows of each table that matter most: parameter-dependent first, then by iterations, loops with their enclosing loops (default ${DEFAULT_TOP}, none with --all)`,
              parseTopCount,
            )
            .option(
              '--all',
              'list every loop and function, also those not executed or pruned statically (the JSON report always has them all)',
            )
            .option(
              '--implicit-flow <mode>',
              "control dependence: loops (values carried to a loop's next iteration take its exit conditions' labels: nests bounded by an outer counter); on: every tainted branch too (values chosen, stores and calls under it; Perf-Taint's control-flow mode); off: data flow only (DFSan); exit conditions and branches are sinks in all three",
              DEFAULT_IMPLICIT_FLOW,
            )
            .option(
              '--coverage <mode>',
              `instrument only the functions a first run enters (on), every function (off), or on for modules of ${COVERAGE_MIN_BYTES >> 20} MiB and more (auto); a run that enters another function runs again with it instrumented`,
              'auto',
            )
            .option(
              '--pointer-labels <mode>',
              "a load's label: join (its bytes' labels and its address's, DFSan's default) or data (its bytes' labels only)",
              DEFAULT_POINTER_LABELS,
            ),
        ),
      ),
    ),
  ).action(onDemand(async () => (await import('../actions/taint.js')).taintAction));
}
