// Parses what a WASI program gets from its host on the command line: `--dir HOST[:GUEST]` (read-only),
// `--dir-rw HOST[:GUEST]`, `--stdin FILE`, `--env NAME=VALUE` and `--clock real|virtual`.
import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { UserError } from '../util/errors.js';
import type { Preopen, WasiClock, WasiConfig } from '../runtime/protocol.js';

export interface WasiCliOptions {
  dir?: string[];
  dirRw?: string[];
  stdin?: string;
  env?: string[];
  clock?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** --dir, --dir-rw, --stdin and --env: what a WASI program gets from its host (every command that runs one). */
export function addWasiOptions(command: Command): Command {
  return command
    .option(
      '--dir <host[:guest]>',
      'give a WASI program a host directory, read-only, as GUEST (default: the same path); repeatable',
      collect,
      [],
    )
    .option(
      '--dir-rw <host[:guest]>',
      'like --dir, but the program may write, create and delete files there',
      collect,
      [],
    )
    .option('--stdin <file>', "a WASI program's standard input (default: empty)")
    .option('--env <name=value>', 'an environment variable for a WASI program; repeatable', collect, []);
}

function preopen(spec: string, writable: boolean): Preopen {
  const flag = writable ? '--dir-rw' : '--dir';
  // HOST:GUEST, split at the last colon so a host path keeps its own; GUEST may not be empty.
  const colon = spec.lastIndexOf(':');
  const host = colon > 0 ? spec.slice(0, colon) : spec;
  const guest = colon > 0 ? spec.slice(colon + 1) : spec;
  if (host === '' || guest === '') throw new UserError(`${flag} '${spec}': expected HOST or HOST:GUEST`, 2);
  let isDirectory = false;
  try {
    isDirectory = statSync(host).isDirectory();
  } catch {
    throw new UserError(`${host}: no such directory (${flag})`, 1);
  }
  if (!isDirectory) throw new UserError(`${host}: not a directory (${flag})`, 1);
  return { host, guest, writable };
}

function environment(specs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const spec of specs) {
    const equals = spec.indexOf('=');
    if (equals <= 0) throw new UserError(`--env '${spec}': expected NAME=VALUE`, 2);
    env[spec.slice(0, equals)] = spec.slice(equals + 1);
  }
  return env;
}

function stdinBytes(file: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(
      `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : 'cannot be read'} (--stdin)`,
      1,
    );
  }
}

export function parseWasiOptions(options: WasiCliOptions, defaultClock: WasiClock): WasiConfig {
  return {
    preopens: [
      ...(options.dir ?? []).map((d) => preopen(d, false)),
      ...(options.dirRw ?? []).map((d) => preopen(d, true)),
    ],
    ...(options.stdin !== undefined ? { stdin: stdinBytes(options.stdin) } : {}),
    env: environment(options.env ?? []),
    clock: (options.clock as WasiClock | undefined) ?? defaultClock,
  };
}

/**
 * What every run of an analysis gets besides its arguments, from --dir/--dir-rw/--stdin/--env and
 * --context-tree: only the fields given (none given: the analysis runs as before).
 */
export function runHostOf(
  options: WasiCliOptions,
  contextBytes: number | undefined,
): { wasi?: WasiConfig; contextBytes?: number } {
  const given =
    (options.dir?.length ?? 0) + (options.dirRw?.length ?? 0) + (options.env?.length ?? 0) > 0 ||
    options.stdin !== undefined;
  return {
    ...(given ? { wasi: parseWasiOptions(options, 'real') } : {}),
    ...(contextBytes !== undefined ? { contextBytes } : {}),
  };
}
