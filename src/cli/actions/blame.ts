// `taintlens blame`'s and `taintlens sample`'s actions: variable blame per blame point, and the
// sampled profile beside the exact one.
import type { Command } from 'commander';
import { parseRunOptions, type RunCliOptions } from '../run-options.js';
import { parseInstrumentOptions, type InstrumentCliOptions } from '../instrument-options.js';
import { emit } from '../output.js';
import { passGuestStreams } from '../guest-streams.js';
import { tableLayout, type LayoutCliOptions } from '../layout-options.js';
import { checkOutputFile, writeJsonAtomic } from '../../util/atomic-write.js';
import { blameModule } from '../../blame/blame.js';
import { blameTables, sampleLossWarnings, sampleTable } from '../../blame/report.js';
import { readWasmFile } from '../../../instrument/wasm-file.js';
import { runSampled } from '../../blame/sample-run.js';
import { profileLoops } from '../../profile/profile-run.js';
import { compareProfiles, summarizeSampled } from '../../blame/sampled-profile.js';

export interface SampleCliOptions extends RunCliOptions, InstrumentCliOptions, LayoutCliOptions {
  period?: number;
  blamePoint: string[];
  top?: number;
  output?: string;
}

export async function blameAction(file: string, options: SampleCliOptions, command: Command): Promise<void> {
  const run = parseRunOptions(options, command.args.slice(1), 'virtual');
  if (options.output) checkOutputFile(options.output);
  const report = await blameModule(file, {
    invoke: run.invoke,
    args: run.args,
    argv: run.argv,
    timeoutMs: run.timeoutMs,
    ...(run.wasi ? { wasi: run.wasi } : {}),
    ...(run.ranks !== undefined ? { ranks: run.ranks } : {}),
    ...(options.period ? { period: options.period } : {}),
    blamePoints: options.blamePoint,
    ...(options.top ? { top: options.top } : {}),
    instrument: parseInstrumentOptions(options),
  });
  if (options.output) writeJsonAtomic(options.output, report);
  passGuestStreams(run.json, report);
  emit(run.json, report, () => blameTables(report, tableLayout(options).width), sampleLossWarnings(report));
}

export async function sampleAction(file: string, options: SampleCliOptions, command: Command): Promise<void> {
  const run = parseRunOptions(options, command.args.slice(1), 'virtual');
  if (options.output) checkOutputFile(options.output);
  const bytes = readWasmFile(file);
  const instrument = parseInstrumentOptions(options);
  // Only the samples per call path are kept while the exact profile is instrumented and run.
  const sampled = summarizeSampled(
    await runSampled(file, bytes, run, {
      ...(options.period ? { period: options.period } : {}),
      instrument,
    }),
  );
  const exact = await profileLoops(file, bytes, { ...run, repeat: 1 }, instrument);
  const profile = compareProfiles(file, sampled, exact);
  if (options.output) writeJsonAtomic(options.output, profile);
  passGuestStreams(run.json, {
    ...(sampled.stdout ? { stdout: sampled.stdout } : {}),
    ...(sampled.stderr ? { stderr: sampled.stderr } : {}),
  });
  emit(
    run.json,
    profile,
    () => sampleTable(profile, tableLayout(options).width, options.top ?? 20),
    sampleLossWarnings(profile),
  );
}
