// The `taintlens` command line: one subcommand per capability, each registered from its own module.
import { Command, CommanderError } from 'commander';
import { UserError, messageOf } from '../util/errors.js';
import { commands } from './commands/index.js';
import { packageVersion } from './version.js';
import { exitQuietlyOnClosedPipe } from './closed-pipe.js';

/** What the option parser rejects (unknown option, missing argument, bad choice ...) is bad usage: 2. */
const USAGE_EXIT_CODE = 2;

export async function main(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe();
  const program = new Command('taintlens')
    .description('Performance analysis for WebAssembly kernels: loop profiles, parameter taint, performance models')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  for (const register of commands) register(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
    if (error instanceof UserError) {
      process.stderr.write(`taintlens: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`taintlens: internal error: ${messageOf(error)}\n`);
    if (process.env.TAINTLENS_DEBUG) console.error(error);
    return 70;
  }
}
