// `taintlens fuzz [options]` (also `npm run fuzz -- [options]`): differential fuzzing of every
// instrumentation mode. The options live here so `--help` lists them and the option parser's
// rejections are bad usage (exit 2) like everywhere else; the campaign itself is in src/fuzz/cli.ts.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { availableParallelism } from 'node:os';
import { onDemand } from '../on-demand.js';

function wholeNumber(min: number) {
  return (text: string): number => {
    const value = Number(text);
    if (text.trim() === '' || !Number.isInteger(value) || value < min)
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}.`);
    return value;
  };
}

export function registerFuzz(program: Command): void {
  const cores = Math.max(1, availableParallelism());
  program
    .command('fuzz')
    .description('differential fuzzing: instrumented modules must compute what the originals do')
    .addOption(new Option('--count <n>', 'cases to check: seeds S … S+N-1').default(100).argParser(wholeNumber(0)))
    .addOption(
      new Option('--seed <s>', 'first seed; a case is reproduced from its seed alone')
        .default(1)
        .argParser(wholeNumber(0)),
    )
    .option(
      '--source <kind>',
      'ttf (wasm-opt -ttf), gen (our generator), mixed (even seeds ttf, odd gen) or a directory of .wasm files',
      'mixed',
    )
    .option('--modes <a,b>', 'modes to check, each on its own (default: every registered mode)')
    .option('--combined', 'also check all modes applied together')
    .addOption(
      new Option('--jobs <j>', 'worker threads').default(cores, `${cores}, one per core`).argParser(wholeNumber(1)),
    )
    .addOption(
      new Option('--timeout <seconds>', 'wall-clock limit per case, once its worker has loaded')
        .default(60)
        .argParser(wholeNumber(1)),
    )
    .addOption(
      new Option('--shrink <seconds>', 'time to shrink each failing module (0: save it as it is)')
        .default(60)
        .argParser(wholeNumber(0)),
    )
    .option('--save <dir>', "where reproducers go ('': nowhere)", 'test/fuzz/regressions')
    .option('--json', 'print the summary as JSON')
    .option('--make-corpus <dir>', 'write wasm-opt -ttf modules for the seeds to DIR instead of checking')
    .action(onDemand(async () => (await import('../actions/fuzz.js')).fuzzAction));
}
