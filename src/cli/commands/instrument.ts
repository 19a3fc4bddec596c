// `taintlens instrument`: writes an instrumented module and its site table (sites.json) to disk.
import type { Command } from 'commander';
import { checkOutputFile, writeFileAtomic, writeJsonAtomic } from '../../util/atomic-write.js';
import { UserError } from '../../util/errors.js';
import { sha256Of } from '../../util/hash.js';
import { emit } from '../output.js';
import { addInstrumentOptions, parseInstrumentOptions, type InstrumentCliOptions } from '../instrument-options.js';

interface InstrumentCommandOptions extends InstrumentCliOptions {
  mode: string;
  output?: string;
  sites?: string;
  json?: boolean;
}

export function registerInstrument(program: Command): void {
  addInstrumentOptions(program.command('instrument <module>'))
    .description('rewrite a module with the given instrumentation and write it with its site table')
    .requiredOption('--mode <modes>', 'comma-separated instrumentation modes: loops, taint')
    .option('-o, --output <file>', 'instrumented module (default: <module>.<mode>.wasm)')
    .option('--sites <file>', 'site table (default: <output>.sites.json)')
    .option('--json', 'print a summary as JSON')
    .action(async (file: string, options: InstrumentCommandOptions) => {
      const { instrumentModule, parseModes } = await import('../../../instrument/pipeline.js');
      const { readWasmFile } = await import('../../../instrument/module-io.js');
      let modes: string[];
      try {
        modes = parseModes(options.mode);
      } catch (error) {
        throw new UserError((error as Error).message, 2);
      }
      const bytes = readWasmFile(file);
      const output = options.output ?? file.replace(/\.wasm$/, '') + `.${modes.join('+')}.wasm`;
      const sitesFile = options.sites ?? output.replace(/\.wasm$/, '') + '.sites.json';
      checkOutputFile(output);
      checkOutputFile(sitesFile);
      const result = instrumentModule(bytes, file, modes, parseInstrumentOptions(options));
      writeFileAtomic(output, result.bytes);
      // The table names the module it describes, so `taintlens run` can tell it is this one's.
      writeJsonAtomic(sitesFile, { ...result.sites, instrumented: { file: output, sha256: sha256Of(result.bytes) } });
      const summary = {
        schema: 'taintlens/instrument@1', module: file, modes, output, sites: sitesFile,
        functions: result.sites.functions.length, loops: result.sites.loops.length, calls: result.sites.calls.length,
        bytes: { before: bytes.length, after: result.bytes.length },
      };
      emit(options.json === true, summary, () =>
        `wrote ${output} (${result.bytes.length.toLocaleString('en-US')} bytes, was ${bytes.length.toLocaleString('en-US')})\n` +
        `wrote ${sitesFile}: ${summary.functions} functions, ${summary.loops} loops, ${summary.calls} call sites`);
    });
}
