// `taintlens fuzz [options]`: the same campaign as `npm run fuzz` (see cli.ts for the options).
import type { Command } from 'commander';

export function registerFuzz(program: Command): void {
  program.command('fuzz')
    .description('differential fuzzing: instrumented modules must compute what the originals do (--count N --seed S ...; --help for all)')
    .helpOption(false)
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .argument('[options...]')
    .action(async (args: string[]) => {
      const { fuzzMain } = await import('./cli.js');
      process.exitCode = await fuzzMain(args);
    });
}
