// Runs a module inside the run worker: instantiate per repetition (fresh state, so counts repeat
// exactly), call the export or `_start`, time only that call, and copy out what analyses need.
import { WasiExit, WasiFatal, WasiHost } from './wasi.js';
import { DEFAULT_MEMORY_LIMIT_MIB } from '../util/memory-limit.js';
import { CONTEXT_OVERFLOW_GLOBALS, OUT_OF_ROOM_GLOBAL } from '../../instrument/reserved-names.js';
import { AbortError, baseImports, detectKind, missingImports } from './host.js';
import { collectGarbage, processCpuMs } from './process-cpu.js';
import { CommunicationAborted, CommunicationError } from './spmd/communicator.js';
import type { HostPlugin, HostPluginFactory, Imports } from './plugin.js';
import type { GuestOutput, ModuleKind, RepetitionResult, RunRequest, RunResponse, ValueType } from './protocol.js';

/** The program grew its memory past what the instrumentation leaves it (see memory-layout.ts). */
class OutOfRoom extends Error {}

class RunFailure extends Error {
  constructor(
    readonly failure: 'trap' | 'link' | 'exit' | 'abort',
    message: string,
    readonly output?: GuestOutput,
    readonly exitCode?: number,
  ) {
    super(message);
  }
}

export async function execute(request: RunRequest): Promise<RunResponse> {
  const kind = detectKind(request.module);
  const factories: HostPluginFactory[] = [];
  for (const plugin of request.plugins) {
    factories.push(((await import(plugin.url)) as { default: HostPluginFactory }).default);
  }
  const args = request.args.map(({ type, text }) => toWasmValue(type, text));
  const repetitions: RepetitionResult[] = [];
  try {
    for (let rep = 0; rep < request.repeat; rep++) {
      if (rep > 0) collectGarbage();
      repetitions.push(runOnce(request, kind, args, factories));
    }
  } catch (error) {
    if (error instanceof OutOfRoom) return { ok: false, failure: 'limit', message: error.message };
    if (error instanceof RunFailure) {
      return {
        ok: false,
        failure: error.failure,
        message: error.message,
        ...(error.output ? { output: error.output } : {}),
        ...(error.exitCode !== undefined ? { exitCode: error.exitCode } : {}),
      };
    }
    if (error instanceof CommunicationError) return { ok: false, failure: 'trap', message: error.message };
    if (error instanceof CommunicationAborted)
      return { ok: false, failure: 'stopped', message: 'stopped: another rank failed' };
    if (error instanceof AbortError) return { ok: false, failure: 'abort', message: `aborted: ${error.message}` };
    if (error instanceof WebAssembly.RuntimeError)
      return { ok: false, failure: 'trap', message: `trap: ${error.message}` };
    throw error;
  }
  return { ok: true, kind, repetitions };
}

function runOnce(
  request: RunRequest,
  kind: ModuleKind,
  args: Array<number | bigint>,
  factories: HostPluginFactory[],
): RepetitionResult {
  let instance: WebAssembly.Instance | undefined;
  const memory = () => exportedMemory(instance);
  const plugins: HostPlugin[] = factories.map((make, i) =>
    make(request.plugins[i]!.options, {
      kind,
      memory,
      instance: () => instance,
      args,
      programBase: request.programBase,
    }),
  );
  const imports: Imports = baseImports(memory, request.programBase);
  const isWasi = kind === 'wasi-command' || kind === 'wasi-reactor';
  const wasi = isWasi
    ? new WasiHost({
        args: [request.file, ...request.argv],
        env: request.wasi.env,
        memory,
        programBase: request.programBase,
        preopens: request.wasi.preopens,
        stdin: request.wasi.stdin,
        clock: request.wasi.clock,
      })
    : null;
  try {
    return runInstance(request, kind, args, plugins, imports, wasi, (made) => (instance = made));
  } finally {
    wasi?.files.closeAll();
  }
}

function runInstance(
  request: RunRequest,
  kind: ModuleKind,
  args: Array<number | bigint>,
  plugins: HostPlugin[],
  imports: Imports,
  wasi: WasiHost | null,
  setInstance: (instance: WebAssembly.Instance) => void,
): RepetitionResult {
  let instance: WebAssembly.Instance;
  const memory = () => exportedMemory(instance);
  if (wasi) imports.wasi_snapshot_preview1 = wasi.imports(request.module);
  for (const plugin of plugins) mergeImports(imports, plugin.imports?.(imports) ?? {});
  const missing = missingImports(request.module, imports);
  if (missing.length > 0) {
    throw new RunFailure(
      'link',
      `imports ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''}, which Taintlens does not provide`,
    );
  }
  try {
    instance = new WebAssembly.Instance(request.module, imports);
    setInstance(instance);
  } catch (error) {
    if (error instanceof WebAssembly.LinkError) throw new RunFailure('link', `cannot link: ${error.message}`);
    throw error;
  }
  let result: RepetitionResult['result'] = null;
  let ms = 0;
  let cpuMs = 0;
  try {
    if (kind === 'wasi-reactor' && typeof instance.exports._initialize === 'function') {
      (instance.exports._initialize as () => void)();
    }
    for (const plugin of plugins) plugin.beforeRun?.();
    if (request.invoke === null) {
      if (kind !== 'wasi-command') throw new RunFailure('link', 'has no _start export: name an export with --invoke');
      const cpuStart = processCpuMs();
      const start = performance.now();
      result = runCommand(instance.exports._start as () => void);
      ms = performance.now() - start;
      cpuMs = processCpuMs() - cpuStart;
      // A command that exits non-zero failed (bad argv, a failed check): its output is no result.
      if (result !== 0)
        throw new RunFailure('exit', `the program exited with code ${result}`, guestOutput(wasi), Number(result));
    } else {
      const target = instance.exports[request.invoke];
      if (typeof target !== 'function') throw new RunFailure('link', `has no exported function '${request.invoke}'`);
      const cpuStart = processCpuMs();
      const start = performance.now();
      let value: unknown;
      try {
        value = (target as (...a: Array<number | bigint>) => unknown)(...args);
      } catch (error) {
        if (error instanceof WasiExit)
          throw new RunFailure('exit', `${request.invoke} called exit(${error.code})`, guestOutput(wasi), error.code);
        throw error;
      }
      ms = performance.now() - start;
      cpuMs = processCpuMs() - cpuStart;
      result = fromWasmValue(value);
    }
  } catch (error) {
    if (error instanceof WasiFatal) throw new RunFailure('abort', error.message, guestOutput(wasi));
    const outOfRoom = instance.exports[OUT_OF_ROOM_GLOBAL] as WebAssembly.Global | undefined;
    if (error instanceof WebAssembly.RuntimeError && outOfRoom?.value === 1) {
      throw new OutOfRoom(
        `the program grew its memory past its limit (--memory-limit MiB; default: its declared maximum, else ${DEFAULT_MEMORY_LIMIT_MIB} MiB) or past what the instrumentation leaves it: run it on a smaller input, or raise --memory-limit where there is room`,
      );
    }
    const treeFull = CONTEXT_OVERFLOW_GLOBALS.some(
      (name) => Number((instance.exports[name] as WebAssembly.Global | undefined)?.value ?? 0) > 0,
    );
    if (error instanceof WebAssembly.RuntimeError && treeFull) {
      throw new OutOfRoom(
        "the calling-context tree is full and a function's context node is larger than its scratch area: raise --context-tree",
      );
    }
    // A WASI program that printed before it trapped (a Rust panic message) shows what it printed.
    const output = guestOutput(wasi);
    if (error instanceof WebAssembly.RuntimeError && output && (output.stdout || output.stderr))
      throw new RunFailure('trap', `trap: ${error.message}`, output);
    throw error;
  }
  const regions: Record<string, Uint8Array> = {};
  const mem = memory();
  for (const region of request.regions) {
    if (!mem) throw new RunFailure('link', 'does not export its memory, so results cannot be read');
    const end = region.endGlobal
      ? Number((instance.exports[region.endGlobal] as WebAssembly.Global).value)
      : region.base + region.bytes;
    regions[region.name] = new Uint8Array(mem.buffer.slice(region.base, Math.min(end, region.base + region.bytes)));
  }
  const globals: Record<string, number | string> = {};
  for (const name of request.globals) {
    const global = instance.exports[name] as WebAssembly.Global | undefined;
    const value = global?.value as unknown;
    globals[name] = typeof value === 'bigint' ? value.toString() : (value as number);
  }
  const pluginResults = plugins.map((plugin) => plugin.afterRun?.() ?? null);
  return {
    result,
    ms,
    cpuMs,
    regions,
    globals,
    stdout: wasi?.stdout ?? '',
    stderr: wasi?.stderr ?? '',
    plugins: pluginResults,
  };
}

function guestOutput(wasi: WasiHost | null): GuestOutput | undefined {
  return wasi ? { stdout: wasi.stdout, stderr: wasi.stderr } : undefined;
}

/** Runs a WASI command's `_start`; its exit code is the result (0 when it returns normally). */
function runCommand(start: () => void): number {
  try {
    start();
    return 0;
  } catch (error) {
    if (error instanceof WasiExit) return error.code;
    throw error;
  }
}

/** The program's memory: `memory` by convention, else any exported memory (ours is `taintlens$memory`). */
function exportedMemory(instance: WebAssembly.Instance | undefined): WebAssembly.Memory | undefined {
  if (!instance) return undefined;
  const named = instance.exports.memory;
  if (named instanceof WebAssembly.Memory) return named;
  return Object.values(instance.exports).find((e): e is WebAssembly.Memory => e instanceof WebAssembly.Memory);
}

function mergeImports(into: Imports, extra: Imports): void {
  for (const [module, fields] of Object.entries(extra)) into[module] = { ...(into[module] ?? {}), ...fields };
}

function toWasmValue(type: ValueType, text: string): number | bigint {
  if (type === 'i64') return BigInt(text);
  return Number(text);
}

function fromWasmValue(value: unknown): RepetitionResult['result'] {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'bigint' ? v.toString() : (v as number)));
  if (typeof value === 'number') return value;
  return String(value);
}
