// `taintlens run`: runs a module uninstrumented (the baseline every analysis is compared with).
import type { Command } from 'commander';
import { addRunOptions } from '../run-options.js';
import { addMemoryLimitOption } from '../instrument-options.js';
import { onDemand } from '../on-demand.js';
import { addWideOption } from '../layout-options.js';

export function registerRun(program: Command): void {
  addWideOption(
    addMemoryLimitOption(
      addRunOptions(
        program
          .command('run <module>')
          .description(
            'run a module uninstrumented: an export with --invoke/--args, or a WASI command with argv after --',
          )
          .usage(
            '<module> [--invoke EXPORT] [--args a,b,...] [--repeat K] [--ranks P] [--timeout S] [--dir H[:G]] [--stdin F] [--env K=V] [--memory-limit MiB] [--wide] [--json] [-- argv...]',
          ),
      ),
    ),
  ).action(onDemand(async () => (await import('../actions/run.js')).runAction));
}
