// Options shared by every command that instruments a module.
import type { Command } from 'commander';
import type { InstrumentOptions } from '../../instrument/pipeline.js';
import { UserError } from '../util/errors.js';

export interface InstrumentCliOptions {
  memoryLimit?: string;
  contextTree?: string;
}

export function addInstrumentOptions(command: Command): Command {
  return addContextTreeOption(addMemoryLimitOption(command));
}

export function addContextTreeOption(command: Command): Command {
  return command.option(
    '--context-tree <MiB>',
    'memory for the calling-context tree (default 16); when it fills, later call paths are not counted and the report says so (measurements refuse the point)',
  );
}

/** --context-tree in bytes, or undefined when not given. */
export function parseContextTreeBytes(options: Pick<InstrumentCliOptions, 'contextTree'>): number | undefined {
  if (options.contextTree === undefined) return undefined;
  const mib = Number(options.contextTree);
  if (!Number.isInteger(mib) || mib < 1 || mib > 1024)
    throw new UserError(`--context-tree must be a whole number of MiB from 1 to 1024, got '${options.contextTree}'`, 2);
  return mib << 20;
}

export function addMemoryLimitOption(command: Command): Command {
  return command.option(
    '--memory-limit <MiB>',
    'most memory the program may grow to (default: its declared maximum, else 1024)',
  );
}

/** --memory-limit in pages of 64 KiB, or undefined when not given. */
export function parseMemoryLimitPages(options: InstrumentCliOptions): number | undefined {
  if (options.memoryLimit === undefined) return undefined;
  const mib = Number(options.memoryLimit);
  if (!Number.isInteger(mib) || mib < 1 || mib > 3072)
    throw new UserError(`--memory-limit must be a whole number of MiB from 1 to 3072, got '${options.memoryLimit}'`, 2);
  return mib * 16;
}

export function parseInstrumentOptions(options: InstrumentCliOptions): InstrumentOptions {
  const parsed: InstrumentOptions = {};
  const pages = parseMemoryLimitPages(options);
  if (pages !== undefined) parsed.programLimitPages = pages;
  const contextBytes = parseContextTreeBytes(options);
  if (contextBytes !== undefined) parsed.contextBytes = contextBytes;
  return parsed;
}
