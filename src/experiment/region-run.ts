// Runs a module under the measurement pass: instrument the chosen region functions, run (a fresh
// instance per repetition), and read each repetition's region statistics back.
import { instrumentIsolated } from '../runtime/isolated-instrument.js';
import type { ExportedFunction } from '../../instrument/exports.js';
import { runModule } from '../runtime/run.js';
import { slowestRankRepetitions } from '../runtime/spmd/slowest-rank.js';
import { decodeRegions, type RegionStats } from './region-profile.js';
import type { RepetitionResult, WasiConfig } from '../runtime/protocol.js';
import { treeFullRefusal } from '../profile/tree-full.js';
import { UserError } from '../util/errors.js';
import type { OpStats } from '../runtime/spmd/op-stats.js';

export interface RegionRunOptions {
  file: string;
  bytes: Uint8Array;
  invoke: string | null;
  args: string[];
  argv: string[];
  repeat: number;
  timeoutMs: number;
  exports?: ExportedFunction[];
  /** Region functions by name; null: every function. */
  functions: string[] | null;
  trace?: number;
  /** SPMD ranks: the time is the slowest rank's, and so are the region statistics. */
  ranks?: number;
  /** A WASI command's folders, environment and standard input. */
  wasi?: WasiConfig;
  /** Size of the region tree (default 16 MiB). */
  treeBytes?: number;
  /** Compile every function with TurboFan before the first call (RunOptions.optimized). */
  optimized?: boolean;
}

export interface RegionRepetition {
  result: RepetitionResult['result'];
  ms: number;
  /** The process's CPU time during the call (RepetitionResult.cpuMs). */
  cpuMs: number;
  regions: RegionStats[];
  /** An SPMD run's communication per rank (empty for a plain run). */
  communication: Array<Record<string, OpStats>>;
}

/** An instrumented module, kept so the points of a campaign instrument it once. */
export interface RegionModule {
  bytes: Uint8Array;
  instrumentedFunctions: number;
  run(options: Omit<RegionRunOptions, 'bytes' | 'functions' | 'trace' | 'treeBytes'>): Promise<RegionRepetition[]>;
}

export async function instrumentRegions(
  file: string,
  bytes: Uint8Array,
  functions: string[] | null,
  trace = 0,
  treeBytes?: number,
): Promise<RegionModule> {
  // Not through the cache (minBytes: every module is under it): a campaign instruments once anyway.
  const { bytes: instrumented, sites } = await instrumentIsolated(
    bytes,
    file,
    ['measure'],
    { measure: { ...(functions ? { functions } : {}), trace, ...(treeBytes !== undefined ? { treeBytes } : {}) } },
    { minBytes: Number.POSITIVE_INFINITY },
  );
  const layout = sites.passes.measure!;
  const tree = layout.tree;
  return {
    bytes: instrumented,
    instrumentedFunctions: layout.regions.length,
    async run(options) {
      const outcome = await runModule({
        file: options.file,
        bytes: instrumented,
        invoke: options.invoke,
        args: options.args,
        argv: options.argv,
        repeat: options.repeat,
        timeoutMs: options.timeoutMs,
        ...(options.exports ? { exports: options.exports } : {}),
        regions: [{ name: 'measure', base: tree.base, bytes: tree.bytes, endGlobal: tree.exports.next }],
        globals: [tree.exports.next, tree.exports.overflow],
        programBase: sites.layout?.programBase ?? 0,
        ...(options.ranks !== undefined ? { ranks: options.ranks } : {}),
        ...(options.wasi ? { wasi: options.wasi } : {}),
        ...(options.optimized ? { optimized: true } : {}),
      });
      // Region statistics of a tree that filled miss call paths: refused, not stored.
      const lost = Math.max(0, ...outcome.repetitions.map((rep) => Number(rep.globals[tree.exports.overflow] ?? 0)));
      if (lost > 0) throw new UserError(treeFullRefusal(lost, tree.bytes));
      return slowestRankRepetitions(outcome).map((rep, i) => ({
        result: rep.result,
        ms: rep.ms,
        cpuMs: rep.cpuMs,
        regions: decodeRegions(rep.regions.measure!, layout, Number(rep.globals[tree.exports.next])),
        communication: outcome.ranks?.map((rank) => rank.repetitions[i]!.communication) ?? [],
      }));
    },
  };
}

export async function runRegions(options: RegionRunOptions): Promise<RegionRepetition[]> {
  const module = await instrumentRegions(
    options.file,
    options.bytes,
    options.functions,
    options.trace,
    options.treeBytes,
  );
  return module.run(options);
}
