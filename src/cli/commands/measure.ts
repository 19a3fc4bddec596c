// `taintlens measure`: the quick front end of the experiment engine (src/experiment/experiment.ts):
// a parameter grid from --vary, written as Extra-P JSON Lines for `taintlens model` (and for
// Extra-P itself). Resumes where a previous run stopped.
import type { Command } from 'commander';
import { addRunOptions } from '../run-options.js';
import { addExperimentOptions } from '../experiment-options.js';
import { onDemand } from '../on-demand.js';
import { addContextTreeOption } from '../instrument-options.js';

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerMeasure(program: Command): void {
  addContextTreeOption(
    addExperimentOptions(
      addRunOptions(
        program
          .command('measure <module>')
          .description(
            'run a kernel over a parameter grid and write measurements (Extra-P JSON Lines): time, instructions and visits per call path',
          )
          .usage(
            '<module> --vary NAME=argK:v1,v2,... [--vary ...] [--args base,...] [--ranks P] [--repeat K] [--mode M] -o measurements.jsonl [-- argv...]',
          )
          .option(
            '--vary <spec>',
            'a varied parameter: NAME=argK:v1,v2,... (export argument K), NAME=argvK:... (WASI argv[K]) or NAME=ranks:... (SPMD ranks); repeatable',
            collect,
            [],
          )
          .requiredOption('-o, --output <file>', 'measurements file (JSON Lines); an existing one is resumed')
          .option(
            '--metrics <list>',
            'what to measure: time (ms), instructions, visits; SPMD runs: bytes, calls, commtime (per communication call)',
            'time,instructions',
          )
          .option(
            '--param <spec>',
            'selective mode / --design auto: mark a parameter for the taint analysis, NAME=argK or NAME=global:EXPORT; repeatable',
            collect,
            [],
          )
          .option(
            '--taint-report <file>',
            'selective mode / --design auto: use this taint report (taintlens taint --json) instead of running the analysis',
          ),
        5,
      ),
      'none',
    ),
  ).action(onDemand(async () => (await import('../actions/measure.js')).measureAction));
}
