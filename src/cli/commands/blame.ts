// `taintlens blame` (variable blame) and `taintlens sample` (the sampled profile beside the exact one).
import type { Command } from 'commander';
import { addRunOptions } from '../run-options.js';
import { addInstrumentOptions } from '../instrument-options.js';
import { UserError } from '../../util/errors.js';
import { onDemand } from '../on-demand.js';
import { addWideOption } from '../layout-options.js';

function parsePositive(flag: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\s*\d+\s*$/.test(text) || !(value >= 1) || value > 1e9)
      throw new UserError(`${flag}: "${text}" is not a whole number from 1 to 1000000000`, 2);
    return value;
  };
}

const collect = (value: string, previous: string[]) => [...previous, value];

function withSampling(command: Command): Command {
  return addWideOption(
    addInstrumentOptions(
      addRunOptions(
        command
          .option('--period <n>', 'instructions between samples on average (default 49999)', parsePositive('--period'))
          .option('-o, --output <file>', 'also write the JSON report to FILE'),
      ),
    ),
  );
}

export function registerBlame(program: Command): void {
  withSampling(
    program
      .command('blame <module>')
      .description(
        'variable blame: which program variables (arrays, structs, globals) the sampled work went into, per blame point',
      )
      .usage(
        '<module> [--invoke EXPORT] [--args a,b,...] [--ranks P] [--period N] [--blame-point FN]... [--top N] [--json] [-- argv...]',
      )
      .option(
        '--blame-point <function>',
        'report blame at this function too (default: the entry function); repeatable',
        collect,
        [],
      )
      .option(
        '--top <n>',
        'variables shown per blame point before the rest is summed as "other" (default 12)',
        parsePositive('--top'),
      ),
  ).action(onDemand(async () => (await import('../actions/blame.js')).blameAction));

  withSampling(
    program
      .command('sample <module>')
      .description('sampled profile per call path (in-Wasm instruction countdown), beside the exact loop profile')
      .usage('<module> [--invoke EXPORT] [--args a,b,...] [--period N] [--top N] [--json] [-- argv...]')
      .option('--top <n>', 'call paths shown (default 20)', parsePositive('--top')),
  ).action(onDemand(async () => (await import('../actions/blame.js')).sampleAction));
}
