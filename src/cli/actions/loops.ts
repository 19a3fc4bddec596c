// `taintlens loops`'s action: profiles the run and prints the loop table (and with --compare the
// function-level vs loop-level profile).
import type { Command } from 'commander';
import { compareTable, loopTable } from '../../report/loops-report.js';
import { parseRunOptions, type RunCliOptions } from '../run-options.js';
import { parseInstrumentOptions, type InstrumentCliOptions } from '../instrument-options.js';
import { emit } from '../output.js';
import { passGuestStreams } from '../guest-streams.js';
import { describeSpread } from '../../profile/repetition-spread.js';
import { treeFullWarning } from '../../profile/tree-full.js';
import { unnamedNote } from '../../report/names.js';
import { checkOutputFile, writeJsonAtomic } from '../../util/atomic-write.js';
import { outputWidth, proseWidth } from '../../report/terminal.js';
import { ranksTable } from '../../report/ranks-report.js';
import { loopRanksTable } from '../../report/loop-ranks-report.js';
import { topInForce } from '../top-option.js';
import { readWasmFile } from '../../../instrument/wasm-file.js';
import { profileLoops } from '../../profile/profile-run.js';

export interface LoopsCliOptions extends RunCliOptions, InstrumentCliOptions {
  compare?: boolean;
  output?: string;
  top?: number;
  all?: boolean;
  wide?: boolean;
}

export async function loopsAction(file: string, options: LoopsCliOptions, command: Command): Promise<void> {
  const run = parseRunOptions(options, command.args.slice(1), 'virtual');
  if (options.output) checkOutputFile(options.output);
  const report = await profileLoops(file, readWasmFile(file), run, parseInstrumentOptions(options));
  if (options.output) writeJsonAtomic(options.output, report);
  passGuestStreams(run.json, report);
  emit(
    run.json,
    report,
    () => {
      const top = topInForce(options);
      const parts = [
        loopTable(report, {
          top,
          all: options.all === true,
          wide: options.wide === true,
          width: outputWidth(),
          proseWidth: proseWidth(),
        }),
      ];
      if (options.compare)
        parts.push('', 'function-level vs loop-level profile (share of all instructions)', compareTable(report));
      if (report.spmd) {
        const layout = { wide: options.wide === true, width: outputWidth() };
        parts.push(
          '',
          ranksTable(report.spmd, options.wide ? undefined : outputWidth()),
          '',
          loopRanksTable(report, Math.min(top ?? 10, 10), layout),
        );
      }
      if (report.spread) parts.push(describeSpread(report.spread));
      if (report.contextsLost) parts.push(treeFullWarning(report.contextsLost, report.contextTreeBytes));
      if (report.unnamedFunctions) parts.push(unnamedNote(report.unnamedFunctions));
      return parts.join('\n');
    },
    report.contextsLost ? [treeFullWarning(report.contextsLost, report.contextTreeBytes)] : [],
  );
}
