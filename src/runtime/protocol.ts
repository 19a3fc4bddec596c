// What the main thread asks a run worker to do, and what comes back. Plain data only: it crosses
// a worker boundary by structured clone.

export type ValueType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128' | 'funcref' | 'externref';

export interface RegionSnapshot {
  name: string;
  base: number;
  bytes: number;
  /** Exported global holding the end of the used part: only [base, end) is copied. */
  endGlobal?: string;
}

/** A module the worker imports to supply host functions and to collect results after each run. */
export interface HostPluginSpec {
  url: string;
  options: unknown;
}

/** A host directory the program sees as `guest` (a WASI preopen). */
export interface Preopen {
  host: string;
  guest: string;
  writable: boolean;
}

export type WasiClock = 'real' | 'virtual';

/** What a WASI program gets from its host besides argv: directories, stdin, environment, clock. */
export interface WasiConfig {
  preopens: Preopen[];
  /** Bytes served on fd 0 (empty: end of file at once). */
  stdin?: Uint8Array;
  env: Record<string, string>;
  clock: WasiClock;
}

export interface RunRequest {
  file: string;
  module: WebAssembly.Module;
  /** Export to call; absent for a WASI command, which runs `_start`. */
  invoke: string | null;
  args: Array<{ type: ValueType; text: string }>;
  argv: string[];
  repeat: number;
  regions: RegionSnapshot[];
  plugins: HostPluginSpec[];
  /** Exported globals to read after each run (counters kept in globals). */
  globals: string[];
  /** Where program address 0 sits in the instrumented memory (0 for an uninstrumented module). */
  programBase: number;
  wasi: WasiConfig;
}

export interface RepetitionResult {
  /** What the export returned (i64 as decimal string), or the WASI exit code. */
  result: number | string | null | Array<number | string>;
  ms: number;
  /** CPU time of the whole process during the call (src/runtime/process-cpu.ts): the call's own in a benchmark. */
  cpuMs: number;
  regions: Record<string, Uint8Array>;
  globals: Record<string, number | string>;
  stdout: string;
  stderr: string;
  plugins: unknown[];
}

/** `stopped`: an SPMD rank told to leave because another rank failed (src/runtime/spmd). */
export type FailureKind = 'trap' | 'link' | 'exit' | 'abort' | 'limit' | 'internal' | 'stopped';

export type RunResponse =
  | { ok: true; kind: ModuleKind; repetitions: RepetitionResult[] }
  | { ok: false; failure: FailureKind; message: string; output?: GuestOutput; exitCode?: number };

/** What a WASI program printed before it failed (shown with a non-zero exit). */
export interface GuestOutput {
  stdout: string;
  stderr: string;
}

export type ModuleKind = 'assemblyscript' | 'wasi-command' | 'wasi-reactor' | 'plain';
