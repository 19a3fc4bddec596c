// `taintlens run`: runs a module uninstrumented (the baseline every analysis is compared with).
import type { Command } from 'commander';
import { addRunOptions, median, parseRunOptions, type RunCliOptions } from '../run-options.js';
import { addMemoryLimitOption, parseMemoryLimitPages, type InstrumentCliOptions } from '../instrument-options.js';
import { emit } from '../output.js';
import { outputWidth } from '../../report/terminal.js';
import { schemaId } from '../../util/schema.js';
import { guestStreams, passGuestStreams } from '../guest-streams.js';

export function registerRun(program: Command): void {
  addMemoryLimitOption(addRunOptions(
    program.command('run <module>')
      .description('run a module uninstrumented: an export with --invoke/--args, or a WASI command with argv after --')
      .usage('<module> [--invoke EXPORT] [--args a,b,...] [--repeat K] [--ranks P] [--timeout S] [--dir H[:G]] [--stdin F] [--env K=V] [--memory-limit MiB] [--json] [-- argv...]'),
  )).action(async (file: string, options: RunCliOptions & InstrumentCliOptions, command: Command) => {
    const { readWasmFile } = await import('../../../instrument/module-io.js');
    const { runModule } = await import('../../runtime/run.js');
    const { programBaseOf } = await import('../../runtime/instrumented-input.js');
    const { capMemoryOrDefault } = await import('../../runtime/memory-cap.js');
    const run = parseRunOptions(options, command.args.slice(1));
    const limitPages = parseMemoryLimitPages(options);
    const original = readWasmFile(file);
    const programBase = programBaseOf(file, original);
    const bytes = capMemoryOrDefault(original, file, limitPages);
    const outcome = await runModule({ file, bytes, invoke: run.invoke, args: run.args, argv: run.argv, repeat: run.repeat, timeoutMs: run.timeoutMs, programBase, wasi: run.wasi, ...(run.ranks !== undefined ? { ranks: run.ranks } : {}) });
    const { spmdSummary, ranksTable } = await import('../../report/ranks-report.js');
    const first = outcome.repetitions[0]!;
    const spmd = outcome.ranks ? spmdSummary(outcome.ranks) : undefined;
    const times = outcome.repetitions.map((r) => r.ms);
    const document = {
      schema: schemaId('run'),
      module: file,
      kind: outcome.kind,
      invoke: run.invoke ?? (outcome.kind === 'wasi-command' ? null : 'run'),
      result: first.result,
      timing: { medianMs: median(times), runs: times.length, minMs: Math.min(...times), maxMs: Math.max(...times) },
      ...guestStreams(first),
      ...(spmd ? { spmd } : {}),
    };
    passGuestStreams(run.json, document);
    emit(run.json, document, () => {
      const label = outcome.kind === 'wasi-command' ? 'exit code' : 'result';
      const text = `${label}${spmd ? ' (rank 0)' : ''}: ${JSON.stringify(first.result)}\ntime: ${document.timing.medianMs.toFixed(3)} ms (median of ${times.length}${spmd ? ', rank 0' : ''})`;
      return spmd ? `${text}\n\n${ranksTable(spmd, outputWidth())}` : text;
    });
  });
}
