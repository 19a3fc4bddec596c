// The host side of Binaryen's `fuzzing-support` imports, as `wasm-opt -ttf` (Binaryen 132) emits
// them, plus our generator's (same names). Every call is written down, so a variant that calls the
// host differently (other arguments, another order, one call more) is a mismatch:
//   log-i32 / log-i64 / log-f32 / log-f64 / log-v128 / log-anyref / log-funcref / log-externref (value)
//   call-export (index[, flags]), call-export-catch (index) -> 1 if it threw
//   call-ref (funcref, flags), call-ref-catch (funcref) -> 1 if it threw
//   table-get (index) -> funcref, table-set (index, funcref)   (on the exported "table")
//   throw (value): 0 throws a JS error, anything else a JS error carrying the value
//   sleep (ms, id) -> id: recorded, never slept (without JSPI a sleep is not observable)
// Calls from JS back into the module are budgeted per top-level export call: exports that call
// each other through call-export(-catch), each caught trap resetting the hang limit, otherwise
// run for hours. Past the budget a call-back throws (and the -catch forms return 1), the same for
// the original and every variant.
// A v128 argument cannot cross into JS: the engine throws a TypeError at the call, the same for
// the original and every variant, and that trap is compared like any other.
import { show } from './show.js';
import { passImports } from '../runtime/host.js';

export const INTERNAL_PREFIX = 'taintlens$';

/** The passes' own imports (the measurement clock, the sample buffer's drain), as every run gets them. */
const PASS_IMPORTS = passImports();

export interface EventLog {
  push(line: string): void;
}

/** Calls from JS back into the module (call-export, call-ref) allowed per top-level export call. */
export const CALLBACKS_PER_EXPORT = 100;

export interface CallbackBudget {
  remaining: number;
}

export class UnsatisfiableImport extends Error {
  constructor(what: string) {
    super(`cannot provide import ${what}`);
    this.name = 'UnsatisfiableImport';
  }
}

export type HostFunction = (...args: unknown[]) => unknown;

/** Imports beyond `fuzzing-support` (the bundled kernels' `env.abort`, ...), by module and name. */
export type HostImports = Record<string, Record<string, HostFunction>>;

/** Calls `target` from JS with no arguments; the catching form turns any throw into 1. */
function callFromJs(target: unknown, catching: boolean, what: string, budget: CallbackBudget): number {
  try {
    if (budget.remaining <= 0) throw new WebAssembly.RuntimeError(`${what}: call-back budget exhausted`);
    budget.remaining--;
    if (typeof target !== 'function') throw new WebAssembly.RuntimeError(`${what}: not a function`);
    (target as () => unknown)();
    return 0;
  } catch (error) {
    if (!catching) throw error;
    return 1;
  }
}

function exportedFunctions(exports: WebAssembly.Exports | null): unknown[] {
  if (!exports) return [];
  return Object.entries(exports)
    .filter(([name, value]) => typeof value === 'function' && !name.startsWith(INTERNAL_PREFIX))
    .map(([, value]) => value);
}

function exportedTable(exports: WebAssembly.Exports | null): WebAssembly.Table {
  const table = exports?.table;
  if (!(table instanceof WebAssembly.Table)) throw new WebAssembly.RuntimeError('no exported table');
  return table;
}

function hostFunction(
  name: string,
  log: EventLog,
  getExports: () => WebAssembly.Exports | null,
  budget: CallbackBudget,
): HostFunction | null {
  if (name.startsWith('log-')) return (...args) => void log.push(`${name} ${args.map(show).join(' ')}`);
  switch (name) {
    case 'call-export':
    case 'call-export-catch':
      return (index, flags) => {
        log.push(`${name} ${show(index)}${flags === undefined ? '' : ` ${show(flags)}`}`);
        const result = callFromJs(
          exportedFunctions(getExports())[Number(index)],
          name === 'call-export-catch',
          'call-export',
          budget,
        );
        return name === 'call-export-catch' ? result : undefined;
      };
    case 'call-ref':
    case 'call-ref-catch':
      return (ref, flags) => {
        log.push(`${name} ${show(ref)}${flags === undefined ? '' : ` ${show(flags)}`}`);
        const result = callFromJs(ref, name === 'call-ref-catch', 'call-ref', budget);
        return name === 'call-ref-catch' ? result : undefined;
      };
    case 'table-get':
      return (index) => {
        log.push(`table-get ${show(index)}`);
        return exportedTable(getExports()).get(Number(index));
      };
    case 'table-set':
      return (index, value) => {
        log.push(`table-set ${show(index)} ${show(value)}`);
        exportedTable(getExports()).set(Number(index), value);
      };
    case 'throw':
      return (value) => {
        log.push(`throw ${show(value)}`);
        throw new Error(value === 0 ? 'fuzzing-support.throw' : `fuzzing-support.throw ${show(value)}`);
      };
    case 'sleep':
      return (ms, id) => {
        log.push(`sleep ${show(ms)} ${show(id)}`);
        return id;
      };
    default:
      return null;
  }
}

/** Imports for a generated module; one outside `fuzzing-support` and `host` cannot be satisfied. */
export function fuzzingSupportImports(
  module: WebAssembly.Module,
  log: EventLog,
  getExports: () => WebAssembly.Exports | null,
  budget: CallbackBudget,
  host: HostImports = {},
): WebAssembly.Imports {
  const imports: Record<string, Record<string, WebAssembly.ImportValue>> = {};
  for (const entry of WebAssembly.Module.imports(module)) {
    const given = entry.kind === 'function' ? host[entry.module]?.[entry.name] : undefined;
    const fn =
      given ??
      (entry.kind !== 'function'
        ? null
        : entry.module === 'fuzzing-support'
          ? hostFunction(entry.name, log, getExports, budget)
          : entry.module === 'taintlens'
            ? (PASS_IMPORTS[entry.name] ?? null)
            : null);
    if (!fn)
      throw new UnsatisfiableImport(
        `${entry.module}.${entry.name}${entry.kind === 'function' ? '' : ` (${entry.kind})`}`,
      );
    (imports[entry.module] ??= {})[entry.name] = fn;
  }
  return imports;
}
