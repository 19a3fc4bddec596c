// In-process execution of one module variant for differential fuzzing: a fresh instance, every
// export called in order with the same seeded arguments, and everything the program can show to the
// outside recorded: results, traps (kind and message), logged values, exported globals and memory.
//
// Generated modules bound their own running time: Binaryen's `-ttf` modules count down a hang-limit
// global (reset by calling `hangLimitInitializer` before each export, as Binaryen's fuzz harness does)
// and our own generator's modules carry a fuel global. The pool adds a wall-clock limit on top.
import { Rng } from './rng.js';
import type { ExportedFunction, WasmValueType } from '../../instrument/exports.js';
import { CALLBACKS_PER_EXPORT, fuzzingSupportImports, INTERNAL_PREFIX, type HostImports } from './fuzzing-support.js';
import { showV128Global } from './v128-global.js';
import { show, trapText } from './show.js';

export { UnsatisfiableImport } from './fuzzing-support.js';
export { show, trapText } from './show.js';

export const HANG_LIMIT_EXPORT = 'hangLimitInitializer';
const MAX_EVENTS = 2000;

export interface PlannedCall {
  name: string;
  args: Array<number | bigint | null>;
}

/** What to call, with which arguments: derived once from the original and used for every variant. */
export interface CallPlan {
  calls: PlannedCall[];
  resetHangLimit: boolean;
}

export interface Observation {
  /** 'ok', or how instantiation failed (a start function may trap). */
  instantiate: string;
  /** One line per call, logged value, result or trap, in order (the first MAX_EVENTS of them). */
  events: string[];
  eventCount: number;
  /** A hash of every event, so event streams longer than what is kept still compare exactly. */
  eventHash: number;
  globals: Record<string, string>;
  /** The program's memory at the end, when it is exported. */
  memory: Uint8Array | null;
  /** True when a call ran out of stack (its depth is engine-dependent; see compare.ts). */
  stackOverflow: boolean;
  /** True when an instrumented program stopped because it outgrew the memory instrumentation leaves it. */
  outOfRoom: boolean;
}

const INTERESTING_I32 = [0, 1, -1, 2, 7, 16, 255, 65535, 65536, 0x7fffffff, -0x80000000, 100, 1024];
const INTERESTING_F = [0, -0, 1, -1, 0.5, 3.25, 1e10, -1e-10, Infinity, -Infinity, NaN, 2 ** 31, 2 ** 63];

export function makePlan(signatures: ExportedFunction[], seed: number): CallPlan {
  // Arguments depend on the export's name, not its position: shrinking a module keeps them.
  const calls = signatures
    .filter((s) => s.name !== HANG_LIMIT_EXPORT && !s.name.startsWith(INTERNAL_PREFIX))
    .map((s) => {
      const rng = new Rng(seed ^ nameHash(s.name));
      return { name: s.name, args: s.params.map((type) => argument(rng, type)) };
    });
  return { calls, resetHangLimit: signatures.some((s) => s.name === HANG_LIMIT_EXPORT) };
}

function nameHash(name: string): number {
  let h = 0x5bd1e995;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function argument(rng: Rng, type: WasmValueType): number | bigint | null {
  const small = rng.chance(0.5);
  switch (type) {
    case 'i32':
      return small ? rng.pick(INTERESTING_I32) : rng.next() | 0;
    case 'i64':
      return small
        ? BigInt(rng.pick(INTERESTING_I32))
        : BigInt.asIntN(64, (BigInt(rng.next()) << 32n) | BigInt(rng.next()));
    case 'f32':
      return small ? Math.fround(rng.pick(INTERESTING_F)) : new Float32Array(new Uint32Array([rng.next()]).buffer)[0]!;
    case 'f64':
      return small ? rng.pick(INTERESTING_F) : (rng.next() - 2 ** 31) / rng.range(1, 1000);
    default:
      return null;
  }
}

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

class Recorder {
  events: string[] = [];
  count = 0;
  hash = 0x811c9dc5;

  push(line: string): void {
    this.count++;
    if (this.events.length < MAX_EVENTS) this.events.push(line);
    let h = this.hash;
    for (let i = 0; i < line.length; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
    this.hash = Math.imul(h ^ 10, 0x01000193) >>> 0;
  }
}

/** Globals JS can read directly; v128 ones through a reader module, lane by lane. */
function showGlobal(global: WebAssembly.Global): string {
  try {
    return show(global.value);
  } catch (error) {
    const v128 = showV128Global(global);
    if (v128 !== null) return v128;
    throw error;
  }
}

export interface ObserveOptions {
  /** Exports to leave out of the globals and memory picture (the instrumentation's own). */
  ignorePrefix?: string;
  /** Bytes of memory that belong to the program (the original's final size); all of it when absent. */
  programBytes?: number;
  /** Where the program's address 0 lies in the real memory (instrumentation data may sit below it). */
  programBase?: number;
  /** Imports other than `fuzzing-support` (a bundled kernel's `env.abort`, ...). */
  host?: HostImports;
}

export function observe(module: WebAssembly.Module, plan: CallPlan, options: ObserveOptions = {}): Observation {
  const recorder = new Recorder();
  let exports: WebAssembly.Exports | null = null;
  const budget = { remaining: CALLBACKS_PER_EXPORT };
  const imports = fuzzingSupportImports(module, recorder, () => exports, budget, options.host);
  let instantiate = 'ok';
  let stackOverflow = false;
  try {
    exports = new WebAssembly.Instance(module, imports).exports;
  } catch (error) {
    instantiate = trapText(error);
    stackOverflow = isStackOverflow(error);
  }
  if (exports) {
    const reset = plan.resetHangLimit ? (exports[HANG_LIMIT_EXPORT] as (() => void) | undefined) : undefined;
    for (const call of plan.calls) {
      const fn = exports[call.name];
      if (typeof fn !== 'function') {
        recorder.push(`missing export ${call.name}`);
        continue;
      }
      recorder.push(`call ${call.name}(${call.args.map(show).join(', ')})`);
      try {
        budget.remaining = CALLBACKS_PER_EXPORT;
        reset?.();
        const result = (fn as (...args: unknown[]) => unknown)(...call.args);
        recorder.push(`=> ${show(result)}`);
      } catch (error) {
        if (isStackOverflow(error)) stackOverflow = true;
        recorder.push(`trap ${trapText(error)}`);
      }
    }
  }
  const globals: Record<string, string> = {};
  let memory: Uint8Array | null = null;
  if (exports) {
    for (const [name, value] of Object.entries(exports)) {
      if (name.startsWith(INTERNAL_PREFIX)) continue;
      if (value instanceof WebAssembly.Global) globals[name] = showGlobal(value);
      else if (value instanceof WebAssembly.Memory && memory === null) {
        // A view, not a copy: nothing runs the instance again, and a program that grew its memory past
        // 1 GiB (a saved reproducer does) would otherwise be copied whole, page by page, on every run.
        const buffer = new Uint8Array(value.buffer);
        const base = options.programBase ?? 0;
        memory =
          options.programBytes === undefined
            ? buffer.subarray(base)
            : buffer.subarray(base, base + options.programBytes);
      }
    }
  }
  const outOfRoom = (exports?.['taintlens$out_of_room'] as WebAssembly.Global | undefined)?.value === 1;
  return {
    instantiate,
    events: recorder.events,
    eventCount: recorder.count,
    eventHash: recorder.hash,
    globals,
    memory,
    stackOverflow,
    outOfRoom,
  };
}
