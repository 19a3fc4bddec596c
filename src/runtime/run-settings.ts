// How an analysis runs a module: which export with which arguments (or a WASI command's argv), how
// often, for how long, with what host (WASI directories, stdin, environment, clock) and how many
// SPMD ranks. Analyses take these; the CLI builds them from its flags (src/cli/run-options.ts).
import type { WasiConfig } from './protocol.js';

export interface RunSettings {
  invoke: string | null;
  args: string[];
  argv: string[];
  repeat: number;
  timeoutMs: number;
  /** Directories, stdin, environment and clock for a WASI program (absent: none, real clock). */
  wasi?: WasiConfig;
  /** SPMD ranks; absent: one instance (one rank if the module imports taintlens_mp). */
  ranks?: number;
}
