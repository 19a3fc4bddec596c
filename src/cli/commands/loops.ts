// `taintlens loops`: the loop profile of a run — every loop per calling context with entries,
// iterations and instructions, and with --compare the function-level vs loop-level profile.
import type { Command } from 'commander';
import { compareTable, loopTable } from '../../report/loops-report.js';
import { addRunOptions, parseRunOptions, type RunCliOptions } from '../run-options.js';
import { addInstrumentOptions, parseInstrumentOptions, type InstrumentCliOptions } from '../instrument-options.js';
import { emit } from '../output.js';
import { passGuestStreams } from '../guest-streams.js';
import { describeSpread } from '../../profile/repetition-spread.js';
import { treeFullWarning } from '../../profile/tree-full.js';
import { unnamedNote } from '../../report/names.js';
import { checkOutputFile, writeJsonAtomic } from '../../util/atomic-write.js';
import { outputWidth, proseWidth } from '../../report/terminal.js';
import { ranksTable } from '../../report/ranks-report.js';
import { loopRanksTable } from '../../report/loop-ranks-report.js';
import { DEFAULT_TOP, parseTopCount, topInForce } from '../top-option.js';

interface LoopsCliOptions extends RunCliOptions, InstrumentCliOptions {
  compare?: boolean;
  output?: string;
  top?: number;
  all?: boolean;
  wide?: boolean;
}

export function registerLoops(program: Command): void {
  addInstrumentOptions(addRunOptions(
    program.command('loops <module>')
      .description('profile every loop: entries, iterations and instructions per loop and calling context')
      .usage('<module> [--invoke EXPORT] [--args a,b,...] [--repeat K] [--ranks P] [--compare] [--top N] [--all] [--wide] [--json] [-o FILE] [-- argv...]')
      .option('--compare', 'also compare the function-level and loop-level profiles')
      .option('--top <n>', `show only the N costliest loop contexts (by inclusive instructions) and their enclosing loops (default ${DEFAULT_TOP}, none with --all)`, parseTopCount)
      .option('--all', 'show every loop context, library code (wasi-libc, libc++, AssemblyScript runtime) included (the JSON report always has them all)')
      .option('--wide', 'do not shorten call paths or fit the table to the terminal width')
      .option('-o, --output <file>', 'also write the JSON profile to FILE'),
  )).action(async (file: string, options: LoopsCliOptions, command: Command) => {
    const { readWasmFile } = await import('../../../instrument/module-io.js');
    const { profileLoops } = await import('../../profile/profile-run.js');
    const run = parseRunOptions(options, command.args.slice(1), 'virtual');
    if (options.output) checkOutputFile(options.output);
    const report = await profileLoops(file, readWasmFile(file), run, parseInstrumentOptions(options));
    if (options.output) writeJsonAtomic(options.output, report);
    passGuestStreams(run.json, report);
    emit(run.json, report, () => {
      const top = topInForce(options);
      const parts = [loopTable(report, { top, all: options.all === true, wide: options.wide === true, width: outputWidth(), proseWidth: proseWidth() })];
      if (options.compare) parts.push('', 'function-level vs loop-level profile (share of all instructions)', compareTable(report));
      if (report.spmd) {
        const layout = { wide: options.wide === true, width: outputWidth() };
        parts.push('', ranksTable(report.spmd, options.wide ? undefined : outputWidth()), '', loopRanksTable(report, Math.min(top ?? 10, 10), layout));
      }
      if (report.spread) parts.push(describeSpread(report.spread));
      if (report.contextsLost) parts.push(treeFullWarning(report.contextsLost, report.contextTreeBytes));
      if (report.unnamedFunctions) parts.push(unnamedNote(report.unnamedFunctions));
      return parts.join('\n');
    });
  });
}
