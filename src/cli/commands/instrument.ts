// `taintlens instrument`: writes an instrumented module and its site table (sites.json) to disk.
import type { Command } from 'commander';
import { addInstrumentOptions } from '../instrument-options.js';
import { onDemand } from '../on-demand.js';

export function registerInstrument(program: Command): void {
  addInstrumentOptions(program.command('instrument <module>'))
    .description('rewrite a module with the given instrumentation and write it with its site table')
    .requiredOption('--mode <modes>', 'comma-separated instrumentation modes: loops, taint')
    .option('-o, --output <file>', 'instrumented module (default: <module>.<mode>.wasm)')
    .option('--sites <file>', 'site table (default: <output>.sites.json)')
    .option(
      '--functions <file>',
      'taint mode: instrument only these functions (site-table names, one per line, as `taintlens taint --instrumented-functions` writes them; a line NAME<TAB>cold: without optimizations); the others keep their code and an entry guard',
    )
    .option('--json', 'print a summary as JSON')
    .action(onDemand(async () => (await import('../actions/instrument.js')).instrumentAction));
}
