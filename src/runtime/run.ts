// Runs a module in a worker thread so a runaway kernel can be stopped at its time limit, and turns
// every failure (trap, missing export, bad arguments, timeout) into a one-line user error.
import type { Worker } from 'node:worker_threads';
import { startWorker, workerModuleUrl } from '../util/worker-code.js';
import { fileError } from '../util/errors.js';
import type { ExportedFunction } from '../../instrument/exports.js';
import { readModuleInterface } from '../../instrument/module-interface.js';
import { foreignHost } from '../util/foreign-host.js';
import { describeGuestOutput } from './guest-output.js';
import { checkRanks, runSpmd, type RankOutcome } from './spmd/spmd-run.js';
import { compileEagerly, type CompileTier } from './spmd/eager-compile.js';
import { MP_MODULE } from './spmd/mp-plugin.js';
import { compileLazily } from './lazy-tier.js';
import type {
  HostPluginSpec,
  ModuleKind,
  RegionSnapshot,
  RepetitionResult,
  RunRequest,
  RunResponse,
  ValueType,
  WasiConfig,
} from './protocol.js';

export interface RunOptions {
  /** Name shown in messages (the user's file, even when running an instrumented copy). */
  file: string;
  bytes: Uint8Array;
  /** Export to call; null runs a WASI command's `_start`. */
  invoke: string | null;
  args: string[];
  argv?: string[];
  repeat?: number;
  timeoutMs?: number;
  regions?: RegionSnapshot[];
  globals?: string[];
  plugins?: HostPluginSpec[];
  /** Where program address 0 sits in an instrumented module's memory (its layout's programBase). */
  programBase?: number;
  /** Signatures of the original module's exports, when already known. */
  exports?: ExportedFunction[];
  /** Directories, stdin, environment and clock of a WASI program (default: none of them, real clock). */
  wasi?: WasiConfig;
  /**
   * Run P instances as SPMD ranks over `taintlens_mp` (src/runtime/spmd). Default: 1 rank when the
   * module imports taintlens_mp, else a plain single run.
   */
  ranks?: number;
  /**
   * Compile every function with TurboFan before the first call, so every repetition runs optimized
   * code (default: V8's own tiers, Liftoff first; see spmd/eager-compile.ts). For timing small
   * kernels: TurboFan compiles a multi-megabyte module for tens of seconds.
   */
  optimized?: boolean;
}

export const NO_WASI_EXTRAS: WasiConfig = { preopens: [], env: {}, clock: 'real' };

export interface RunOutcome {
  kind: ModuleKind;
  /** Rank 0's repetitions in an SPMD run. */
  repetitions: RepetitionResult[];
  /** Every rank's repetitions, in an SPMD run only. */
  ranks?: RankOutcome[];
}

export const TIMEOUT_EXIT_CODE = 124;

/** A WASI command (run through `_start`, `invoke` null) takes no export arguments: they would be dropped unseen. */
export function checkCommandArgs(file: string, invoke: string | null, args: string[] | undefined): void {
  if (invoke === null && args !== undefined && args.length > 0)
    throw fileError(
      file,
      `--args gives an export's arguments, but this WASI command runs _start: pass its command line after -- (e.g. -- ${args.join(' ')})`,
      2,
    );
}

/** A command line for a module that cannot read one (it imports no WASI `args_get`) would be dropped unseen. */
function checkArgvRead(file: string, module: WebAssembly.Module, argv: string[] | undefined): void {
  if (argv === undefined || argv.length === 0) return;
  const readsArgv = WebAssembly.Module.imports(module).some(
    (i) => i.module === 'wasi_snapshot_preview1' && i.name === 'args_get',
  );
  if (!readsArgv)
    throw fileError(
      file,
      `the module does not read a command line (it imports no WASI args_get), so '${argv.join(' ')}' after -- would be ignored${argv.every((a) => /^-?[\d.]+$/.test(a)) ? ` (an export's arguments go in --args ${argv.join(',')})` : ''}`,
      2,
    );
}

export async function runModule(options: RunOptions): Promise<RunOutcome> {
  const { file } = options;
  // SPMD ranks share one compiled module: compiled whole here, not lazily by every rank.
  const module = compile(
    options.bytes,
    file,
    options.optimized ? 'optimized' : (options.ranks ?? 1) > 1 ? 'baseline' : 'lazy',
  );
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  const invoke = options.invoke ?? (exports.includes('_start') ? null : defaultExport(exports, file));
  checkCommandArgs(file, invoke, options.args);
  checkArgvRead(file, module, options.argv);
  const args =
    invoke === null ? [] : typedArgs(options, invoke, options.exports ?? (await exportSignatures(options.bytes, file)));
  const request: RunRequest = {
    file,
    module,
    invoke,
    args,
    argv: options.argv ?? [],
    repeat: options.repeat ?? 1,
    regions: options.regions ?? [],
    plugins: options.plugins ?? [],
    globals: options.globals ?? [],
    programBase: options.programBase ?? 0,
    wasi: options.wasi ?? NO_WASI_EXTRAS,
  };
  const ranks =
    options.ranks ?? (WebAssembly.Module.imports(module).some((i) => i.module === MP_MODULE) ? 1 : undefined);
  const timeoutMs = options.timeoutMs ?? 60_000;
  if (ranks !== undefined) return runRanks(request, ranks, timeoutMs);
  const response = await inWorker(request, timeoutMs);
  if (!response.ok) throw runFailure(request, response);
  return { kind: response.kind, repetitions: response.repetitions };
}

async function runRanks(request: RunRequest, ranks: number, timeoutMs: number): Promise<RunOutcome> {
  const problem = checkRanks(ranks);
  if (problem) throw fileError(request.file, problem, 2);
  const result = await runSpmd(request, ranks, timeoutMs, startRunWorker);
  if (result.ok) return { kind: result.kind, repetitions: result.ranks[0]!.repetitions, ranks: result.ranks };
  if (result.timedOut)
    throw fileError(
      request.file,
      `${timeLimitMessage(request, timeoutMs)}; ${result.response.message}`,
      TIMEOUT_EXIT_CODE,
    );
  throw runFailure(request, result.response, result.rank === null ? '' : `rank ${result.rank}: `);
}

/** One line for a failed run: `k.wasm: [rank 2: ]trap in run: unreachable`, with the program's exit code when it has one. */
function runFailure(request: RunRequest, response: Extract<RunResponse, { ok: false }>, prefix = ''): Error {
  const { file, invoke } = request;
  const where = invoke ? ` in ${invoke}` : '';
  if (response.failure === 'internal') return fileError(file, `${prefix}internal error: ${response.message}`);
  // A program's own exit code is passed on (1..125: codes above are the shell's and ours).
  const code =
    response.exitCode !== undefined && response.exitCode >= 1 && response.exitCode <= 125 ? response.exitCode : 1;
  return fileError(
    file,
    `${prefix}${response.message.replace(/^trap: /, `trap${where}: `)}${describeGuestOutput(response.output)}`,
    code,
  );
}

function timeLimitMessage(request: RunRequest, timeoutMs: number): string {
  return `time limit exceeded: ${request.invoke ?? '_start'} ran longer than ${(timeoutMs / 1000).toFixed(timeoutMs % 1000 ? 1 : 0)} s (raise it with --timeout)`;
}

function compile(bytes: Uint8Array, file: string, how: CompileTier | 'lazy'): WebAssembly.Module {
  let module: WebAssembly.Module;
  try {
    module = how === 'lazy' ? compileLazily(bytes) : compileEagerly(bytes, how);
  } catch (error) {
    throw fileError(file, `invalid module: ${(error as Error).message.replace(/^WebAssembly\.Module\(\): /, '')}`);
  }
  const foreign = foreignHost(
    WebAssembly.Module.imports(module),
    WebAssembly.Module.exports(module).map((e) => e.name),
  );
  if (foreign) throw fileError(file, foreign);
  return module;
}

function defaultExport(exports: string[], file: string): string {
  if (exports.includes('run')) return 'run';
  throw fileError(
    file,
    `no export to run: pass --invoke NAME (exports: ${exports.filter((e) => !e.startsWith('taintlens$')).join(', ') || 'none'})`,
  );
}

/**
 * The exports' signatures from the module's sections; Binaryen is loaded only for a module that
 * reader does not understand, so running a plain module never pays for it.
 */
async function exportSignatures(bytes: Uint8Array, file: string): Promise<ExportedFunction[]> {
  return (
    readModuleInterface(bytes)?.functions ?? (await import('../../instrument/exports.js')).readExports(bytes, file)
  );
}

function typedArgs(
  options: RunOptions,
  invoke: string,
  signatures: ExportedFunction[],
): Array<{ type: ValueType; text: string }> {
  const signature = signatures.find((s) => s.name === invoke);
  if (!signature) {
    const names = signatures.map((s) => s.name).filter((n) => !n.startsWith('taintlens$'));
    throw fileError(options.file, `no exported function '${invoke}' (exports: ${names.join(', ') || 'none'})`);
  }
  if (signature.params.length !== options.args.length) {
    throw fileError(
      options.file,
      `${invoke} takes ${signature.params.length} argument(s) (${signature.params.join(', ') || 'none'}), got ${options.args.length}`,
    );
  }
  return signature.params.map((type, i) => {
    const text = options.args[i]!.trim();
    const valid =
      type === 'i32' || type === 'i64'
        ? /^-?\d+$/.test(text)
        : type === 'f32' || type === 'f64'
          ? Number.isFinite(Number(text)) || /^-?(inf|infinity|nan)$/i.test(text)
          : false;
    if (!valid) throw fileError(options.file, `argument ${i + 1} of ${invoke} must be ${type}, got '${text}'`);
    return { type, text };
  });
}

/** A run worker for one request (the module's source or built form, whichever is running). */
export function startRunWorker(request: RunRequest): Worker {
  const plugins = request.plugins.map((plugin) => ({ ...plugin, url: workerModuleUrl(plugin.url) }));
  return startWorker('runtime/worker', { workerData: { ...request, plugins } });
}

function inWorker(request: RunRequest, timeoutMs: number): Promise<RunResponse> {
  const worker = startRunWorker(request);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(fileError(request.file, timeLimitMessage(request, timeoutMs), TIMEOUT_EXIT_CODE));
    }, timeoutMs);
    // On success the worker ends by itself: terminating a worker that is still tearing down a large
    // Wasm memory crashed Node 20 (SIGSEGV) now and then.
    let response: RunResponse | null = null;
    worker.once('message', (message: RunResponse) => {
      clearTimeout(timer);
      response = message;
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(fileError(request.file, `run failed: ${error.message}`));
    });
    worker.once('exit', (code) => {
      clearTimeout(timer);
      if (response) resolve(response);
      else reject(fileError(request.file, `run worker exited unexpectedly (code ${code})`));
    });
  });
}
