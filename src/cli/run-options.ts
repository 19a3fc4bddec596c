// Options shared by every command that runs a module: which export, its arguments, WASI argv after
// `--`, what a WASI program gets from its host (directories, stdin, environment, clock), repetitions
// and the time limit.
import { Option, type Command } from 'commander';
import { UserError } from '../util/errors.js';
import { addWasiOptions, parseWasiOptions, type WasiCliOptions } from './wasi-options.js';
import type { WasiClock } from '../runtime/protocol.js';
import type { RunSettings } from '../runtime/run-settings.js';
import { MAX_RANKS } from '../runtime/spmd/shared-state.js';

export interface RunCliOptions extends WasiCliOptions {
  invoke?: string;
  args?: string;
  /** Numbers when defaulted, text as typed otherwise. */
  repeat: string | number;
  timeout: string | number;
  ranks?: string;
  json?: boolean;
}

/** What the CLI hands an analysis (RunSettings), plus whether the user asked for JSON. */
export interface ParsedRunOptions extends RunSettings {
  json: boolean;
}

export function addRunOptions(command: Command, defaultRepeat = 1): Command {
  return addWasiOptions(
    command
      .allowExcessArguments(true)
      .option('--invoke <export>', 'exported function to call (default: run; a WASI command runs _start)')
      .option('--args <list>', 'comma-separated arguments for the export, e.g. 64,10')
      .addOption(
        new Option('--repeat <k>', 'run K times on fresh instances; timing is the median').default(defaultRepeat),
      )
      .addOption(new Option('--timeout <seconds>', 'stop a run that takes longer than this').default(60))
      .addOption(
        new Option(
          '--clock <kind>',
          'WASI clocks: real, or virtual (1 ms per reading from a fixed start: repeatable counts); analyses default to virtual',
        ).choices(['real', 'virtual']),
      )
      .option('--ranks <p>', 'run P instances as SPMD ranks that pass messages through taintlens_mp (see docs/spmd.md)')
      .option('--json', 'machine-readable output'),
  );
}

/** `defaultClock`: analyses (loops, taint) read a virtual clock unless told otherwise, so counts repeat. */
export function parseRunOptions(
  options: RunCliOptions,
  argv: string[],
  defaultClock: WasiClock = 'real',
): ParsedRunOptions {
  const repeat = Number(options.repeat);
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new UserError(`--repeat must be a positive whole number, got '${options.repeat}'`, 2);
  const timeout = Number(options.timeout);
  if (!(timeout > 0))
    throw new UserError(`--timeout must be a positive number of seconds, got '${options.timeout}'`, 2);
  const ranks = options.ranks === undefined ? undefined : Number(options.ranks);
  if (ranks !== undefined && (!/^\s*\d+\s*$/.test(options.ranks!) || ranks < 1 || ranks > MAX_RANKS)) {
    throw new UserError(`--ranks must be a whole number from 1 to ${MAX_RANKS}, got '${options.ranks}'`, 2);
  }
  const args = options.args === undefined || options.args === '' ? [] : options.args.split(',');
  return {
    invoke: options.invoke ?? null,
    args,
    argv,
    repeat,
    timeoutMs: timeout * 1000,
    json: options.json === true,
    wasi: parseWasiOptions(options, defaultClock),
    ...(ranks !== undefined ? { ranks } : {}),
  };
}
