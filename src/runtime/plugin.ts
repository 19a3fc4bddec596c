// Extension point for analyses that need host functions at run time (e.g. the taint analysis gives
// `taintlens.register_variable` meaning). A plugin is a module whose default export is a factory;
// it runs inside the run worker, gets a fresh instance per repetition, and returns plain data.
import type { ModuleKind } from './protocol.js';

export type Imports = Record<string, Record<string, WebAssembly.ImportValue>>;

export interface HostPluginContext {
  kind: ModuleKind;
  memory(): WebAssembly.Memory | undefined;
  instance(): WebAssembly.Instance | undefined;
  /** Where program address 0 sits in memory(): add it to a pointer the program passes. */
  programBase: number;
  /** Arguments of the invoked export, as passed. */
  args: ReadonlyArray<number | bigint>;
}

export interface HostPlugin {
  /** Imports to add or override (merged over the defaults, which it is given so it can wrap them). */
  imports?(defaults: Imports): Imports;
  /** Called after instantiation, before the export runs. */
  beforeRun?(): void;
  /** Called after the export returned; its value is sent back to the main thread. */
  afterRun?(): unknown;
}

export type HostPluginFactory = (options: unknown, context: HostPluginContext) => HostPlugin;
