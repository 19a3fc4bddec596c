// `taintlens blame` (variable blame) and `taintlens sample` (the sampled profile beside the exact one).
import type { Command } from 'commander';
import { addRunOptions, parseRunOptions, type RunCliOptions } from '../run-options.js';
import { addInstrumentOptions, parseInstrumentOptions, type InstrumentCliOptions } from '../instrument-options.js';
import { emit } from '../output.js';
import { passGuestStreams } from '../guest-streams.js';
import { outputWidth } from '../../report/terminal.js';
import { UserError } from '../../util/errors.js';
import { checkOutputFile, writeJsonAtomic } from '../../util/atomic-write.js';

interface SampleCliOptions extends RunCliOptions, InstrumentCliOptions {
  period?: number;
  blamePoint: string[];
  top?: number;
  output?: string;
}

function parsePositive(flag: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\s*\d+\s*$/.test(text) || !(value >= 1) || value > 1e9) throw new UserError(`${flag}: "${text}" is not a whole number from 1 to 1000000000`, 2);
    return value;
  };
}

const collect = (value: string, previous: string[]) => [...previous, value];

function withSampling(command: Command): Command {
  return addInstrumentOptions(addRunOptions(command
    .option('--period <n>', 'instructions between samples on average (default 4999)', parsePositive('--period'))
    .option('-o, --output <file>', 'also write the JSON report to FILE')));
}

export function registerBlame(program: Command): void {
  withSampling(program.command('blame <module>')
    .description('variable blame: which program variables (arrays, structs, globals) the sampled work went into, per blame point')
    .usage('<module> [--invoke EXPORT] [--args a,b,...] [--ranks P] [--period N] [--blame-point FN]... [--top N] [--json] [-- argv...]')
    .option('--blame-point <function>', 'report blame at this function too (default: the entry function); repeatable', collect, [])
    .option('--top <n>', 'variables shown per blame point before the rest is summed as "other" (default 12)', parsePositive('--top')),
  ).action(async (file: string, options: SampleCliOptions, command: Command) => {
    const { blameModule } = await import('../../blame/blame.js');
    const { blameTables } = await import('../../blame/report.js');
    const run = parseRunOptions(options, command.args.slice(1), 'virtual');
    if (options.output) checkOutputFile(options.output);
    const report = await blameModule(file, {
      invoke: run.invoke, args: run.args, argv: run.argv, timeoutMs: run.timeoutMs, ...(run.wasi ? { wasi: run.wasi } : {}),
      ...(run.ranks !== undefined ? { ranks: run.ranks } : {}),
      ...(options.period ? { period: options.period } : {}), blamePoints: options.blamePoint, ...(options.top ? { top: options.top } : {}),
      instrument: parseInstrumentOptions(options),
    });
    if (options.output) writeJsonAtomic(options.output, report);
    passGuestStreams(run.json, report);
    emit(run.json, report, () => blameTables(report, outputWidth()));
  });

  withSampling(program.command('sample <module>')
    .description('sampled profile per call path (in-Wasm instruction countdown), beside the exact loop profile')
    .usage('<module> [--invoke EXPORT] [--args a,b,...] [--period N] [--top N] [--json] [-- argv...]')
    .option('--top <n>', 'call paths shown (default 20)', parsePositive('--top')),
  ).action(async (file: string, options: SampleCliOptions, command: Command) => {
    const { readWasmFile } = await import('../../../instrument/module-io.js');
    const { runSampled } = await import('../../blame/sample-run.js');
    const { profileLoops } = await import('../../profile/profile-run.js');
    const { compareProfiles } = await import('../../blame/sampled-profile.js');
    const { sampleTable } = await import('../../blame/report.js');
    const run = parseRunOptions(options, command.args.slice(1), 'virtual');
    if (options.output) checkOutputFile(options.output);
    const bytes = readWasmFile(file);
    const instrument = parseInstrumentOptions(options);
    const sampled = await runSampled(file, bytes, run, { ...(options.period ? { period: options.period } : {}), instrument });
    const exact = await profileLoops(file, bytes, { ...run, repeat: 1 }, instrument);
    const profile = compareProfiles(file, sampled, exact);
    if (options.output) writeJsonAtomic(options.output, profile);
    passGuestStreams(run.json, { ...(sampled.stdout ? { stdout: sampled.stdout } : {}), ...(sampled.stderr ? { stderr: sampled.stderr } : {}) });
    emit(run.json, profile, () => sampleTable(profile, outputWidth(), options.top ?? 20));
  });
}
