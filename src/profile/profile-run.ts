// Runs a module under the loop profiler: instrument, run (fresh instance per repetition), decode
// the context tree, and check that repetitions agree (with the virtual clock they do unless the
// program reads outside state; where they do not, the spread is reported).
import type { InstrumentOptions } from '../../instrument/pipeline.js';
import { instrumentIsolated } from '../runtime/isolated-instrument.js';
import { readExports } from '../../instrument/exports.js';
import { runModule } from '../runtime/run.js';
import { median } from '../util/stats.js';
import type { RunSettings } from '../runtime/run-settings.js';
import { decodeLoopProfile, type LoopProfile } from './loop-profile.js';
import { loopSources, type LoopSources } from './loop-sources.js';
import { schemaId } from '../util/schema.js';
import { repetitionSpread, type RepetitionSpread } from './repetition-spread.js';
import type { RepetitionResult } from '../runtime/protocol.js';
import { guestStreams } from '../runtime/guest-output.js';
import { mergeRankProfiles, type MergedLoopProfile } from './merge-ranks.js';
import { spmdSummary, type SpmdSummary } from '../report/ranks-report.js';

export interface LoopProfileReport extends LoopProfile, LoopSources {
  schema: string;
  module: string;
  invoke: string | null;
  args: string[];
  result: RepetitionResult['result'];
  timing: { medianMs: number; runs: number };
  stdout?: string;
  stderr?: string;
  /** Functions without any name (stripped module): shown as funcN. */
  unnamedFunctions?: number;
  /** Entries into call paths that found the calling-context tree full (not counted); absent when none. */
  contextsLost?: number;
  /** The size of that tree in bytes (present with contextsLost: the fix doubles it). */
  contextTreeBytes?: number;
  /** SPMD runs (--ranks): the profile above is the sum over ranks; this is each rank's share. */
  spmd?: SpmdSummary;
  /** SPMD runs: per loop context, its inclusive instructions on each rank and their spread. */
  rankSpread?: MergedLoopProfile['rankSpread'];
  /** Present when repetitions counted differently: the report is the first repetition's. */
  spread?: RepetitionSpread;
}

export async function profileLoops(
  file: string,
  bytes: Uint8Array,
  run: RunSettings,
  options: InstrumentOptions = {},
): Promise<LoopProfileReport> {
  const exports = readExports(bytes, file);
  const { bytes: instrumented, sites } = await instrumentIsolated(bytes, file, ['loops'], options);
  const layout = sites.passes.loops!;
  const outcome = await runModule({
    file,
    bytes: instrumented,
    invoke: run.invoke,
    args: run.args,
    argv: run.argv,
    repeat: run.repeat,
    timeoutMs: run.timeoutMs,
    exports,
    regions: [{ name: 'loops', base: layout.base, bytes: layout.bytes, endGlobal: layout.exports.next }],
    globals: [layout.exports.next, layout.exports.overflow],
    programBase: sites.layout?.programBase ?? 0,
    wasi: run.wasi,
    ...(run.ranks !== undefined ? { ranks: run.ranks } : {}),
  });
  const decode = (rep: RepetitionResult) =>
    decodeLoopProfile(rep.regions.loops!, sites, layout, Number(rep.globals[layout.exports.next]));
  const profiles = outcome.repetitions.map(decode);
  const rankProfiles = outcome.ranks?.map((r) => decode(r.repetitions[0]!));
  const first = rankProfiles ? mergeRankProfiles(rankProfiles) : profiles[0]!;
  const spread = repetitionSpread(profiles);
  const rep = outcome.repetitions[0]!;
  const located = loopSources(sites, first.loops);
  return {
    schema: schemaId('loops'),
    module: file,
    invoke: run.invoke ?? (outcome.kind === 'wasi-command' ? null : 'run'),
    args: run.invoke === null && outcome.kind === 'wasi-command' ? run.argv : run.args,
    result: rep.result,
    timing: { medianMs: median(outcome.repetitions.map((r) => r.ms)), runs: outcome.repetitions.length },
    ...first,
    ...located,
    ...guestStreams(rep),
    ...(spread ? { spread } : {}),
    ...(outcome.ranks && rankProfiles
      ? {
          spmd: spmdSummary(
            outcome.ranks,
            rankProfiles.map((p) => p.totalInstructions),
          ),
        }
      : {}),
    ...(sites.unnamed ? { unnamedFunctions: sites.unnamed } : {}),
    ...(Number(rep.globals[layout.exports.overflow]) > 0
      ? { contextsLost: Number(rep.globals[layout.exports.overflow]), contextTreeBytes: layout.bytes }
      : {}),
  };
}
