// Options shared by every command that instruments a module.
import type { Command } from 'commander';
import type { InstrumentOptions } from '../../instrument/pipeline.js';
import { UserError } from '../util/errors.js';

export interface InstrumentCliOptions {
  memoryLimit?: string;
}

export function addInstrumentOptions(command: Command): Command {
  return command
    .option('--memory-limit <MiB>', 'most memory the program may grow to (default: its declared maximum, else 1024)');
}

export function parseInstrumentOptions(options: InstrumentCliOptions): InstrumentOptions {
  const parsed: InstrumentOptions = {};
  if (options.memoryLimit !== undefined) {
    const mib = Number(options.memoryLimit);
    if (!Number.isInteger(mib) || mib < 1 || mib > 3072) throw new UserError(`--memory-limit must be a whole number of MiB from 1 to 3072, got '${options.memoryLimit}'`, 2);
    parsed.programLimitPages = mib * 16;
  }
  return parsed;
}
