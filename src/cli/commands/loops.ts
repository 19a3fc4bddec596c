// `taintlens loops`: the loop profile of a run — every loop per calling context with entries,
// iterations and instructions, and with --compare the function-level vs loop-level profile.
import type { Command } from 'commander';
import { addRunOptions } from '../run-options.js';
import { addInstrumentOptions } from '../instrument-options.js';
import { DEFAULT_TOP, parseTopCount } from '../top-option.js';
import { onDemand } from '../on-demand.js';

export function registerLoops(program: Command): void {
  addInstrumentOptions(
    addRunOptions(
      program
        .command('loops <module>')
        .description('profile every loop: entries, iterations and instructions per loop and calling context')
        .usage(
          '<module> [--invoke EXPORT] [--args a,b,...] [--repeat K] [--ranks P] [--compare] [--top N] [--all] [--wide] [--json] [-o FILE] [-- argv...]',
        )
        .option('--compare', 'also compare the function-level and loop-level profiles')
        .option(
          '--top <n>',
          `show only the N costliest loop contexts (by inclusive instructions) and their enclosing loops (default ${DEFAULT_TOP}, none with --all)`,
          parseTopCount,
        )
        .option(
          '--all',
          'show every loop context, library code (wasi-libc, libc++, AssemblyScript runtime) included (the JSON report always has them all)',
        )
        .option('--wide', 'do not shorten call paths or fit the table to the terminal width')
        .option('-o, --output <file>', 'also write the JSON profile to FILE'),
    ),
  ).action(onDemand(async () => (await import('../actions/loops.js')).loopsAction));
}
