// The taint analysis' host plugin (runs inside the run worker, fresh per repetition): gives
// `taintlens.register_variable(addr, size, name)` its meaning — the bytes [addr, addr+size) get the
// label bit of `name` in shadow memory, replacing the labels they carried (as in Perf-Taint,
// marking says "this value is parameter X", not "this value also depends on X") — and labels export arguments and exported globals named by
// `--param NAME=argK` / `--param NAME=global:EXPORT` before the export runs. One name, one bit:
// fixed names (command-line parameters, library sources) come first, the others in order of
// registration. Returns the names seen, so the report can decode label bits.
import type { HostPluginFactory, Imports } from '../runtime/plugin.js';
import { labelIndices, type ShadowPlacement } from '../../instrument/passes/shadow-placement.js';
import { labelledWasi, type InputLabel } from './input-labels.js';

export interface TaintPluginOptions {
  shadow: ShadowPlacement;
  /** Names with fixed bits (bit i = names[i]). */
  names: string[];
  /** Export arguments to label: global holding argument k's label. */
  args: Array<{ name: string; global: string }>;
  /** Exported globals to label, by the export name of their shadow global. */
  globals: Array<{ name: string; shadow: string }>;
  /** A WASI program's inputs to label: argv words, environment variables, files read by name. */
  inputs?: InputLabel[];
  maxLabels: number;
}

export interface TaintPluginResult {
  names: string[];
  /** Names that did not get a label because all bits were taken. */
  dropped: string[];
  registrations: number;
}

const factory: HostPluginFactory = (rawOptions, context) => {
  const options = rawOptions as TaintPluginOptions;
  const names = [...options.names];
  const dropped: string[] = [];
  let registrations = 0;
  const bitOf = (name: string): number => {
    let index = names.indexOf(name);
    if (index < 0) {
      if (names.length >= options.maxLabels) {
        if (!dropped.includes(name)) dropped.push(name);
        return 0;
      }
      index = names.push(name) - 1;
    }
    return (1 << index) >>> 0;
  };
  const readName = (programPointer: number): string => {
    const memory = context.memory();
    const pointer = programPointer + context.programBase;
    if (!memory || programPointer <= 0 || pointer >= memory.buffer.byteLength) return `@${programPointer}`;
    const bytes = new Uint8Array(memory.buffer, pointer, Math.min(256, memory.buffer.byteLength - pointer));
    let end = bytes.indexOf(0);
    if (end < 0) end = bytes.length;
    return Buffer.from(bytes.subarray(0, end)).toString('utf8') || `@${programPointer}`;
  };
  /**
   * `join`: inputs the host writes (argv words, environment values, file bytes) add their label, so
   * two short inputs sharing a label word both keep theirs; register_variable replaces, as in
   * Perf-Taint (marking says "this value is parameter X").
   */
  const label = (addr: number, size: number, bit: number, join: boolean) => {
    const memory = context.memory();
    if (!memory || size <= 0) return;
    const shadow = new Uint32Array(memory.buffer);
    const words = labelIndices(options.shadow, addr >>> 0, size >>> 0);
    const end = Math.min(words.end, shadow.length);
    if (!join) shadow.fill(bit >>> 0, words.start, end);
    else for (let i = words.start; i < end; i++) shadow[i] = (shadow[i]! | bit) >>> 0;
  };
  return {
    imports(defaults: Imports): Imports {
      return {
        ...labelledWasi(options.inputs ?? [], defaults, context, (addr, size, name) =>
          label(addr, size, bitOf(name), true),
        ),
        taintlens: {
          register_variable(addr: number, size: number, name: number) {
            registrations++;
            label(addr, size, bitOf(readName(name)), false);
          },
        },
      };
    },
    beforeRun() {
      const exports = context.instance()?.exports ?? {};
      const set = (global: string, bit: number) => {
        const g = exports[global] as WebAssembly.Global | undefined;
        if (g) g.value = (g.value as number) | bit | 0;
      };
      for (const arg of options.args) set(arg.global, bitOf(arg.name));
      for (const global of options.globals) set(global.shadow, bitOf(global.name));
    },
    afterRun(): TaintPluginResult {
      return { names, dropped, registrations };
    },
  };
};

export default factory;
