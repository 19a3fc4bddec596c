// `taintlens run`'s action: runs a module uninstrumented (the baseline every analysis is compared
// with). Loads no Binaryen: the module is checked and its exports read from its sections.
import type { Command } from 'commander';
import { parseRunOptions, type RunCliOptions } from '../run-options.js';
import { median } from '../../util/stats.js';
import { parseMemoryLimitPages, type InstrumentCliOptions } from '../instrument-options.js';
import { emit } from '../output.js';
import { tableLayout, type LayoutCliOptions } from '../layout-options.js';
import { schemaId } from '../../util/schema.js';
import { passGuestStreams } from '../guest-streams.js';
import { guestStreams } from '../../runtime/guest-output.js';
import { readWasmFile } from '../../../instrument/wasm-file.js';
import { runModule } from '../../runtime/run.js';
import { programBaseOf } from '../../runtime/instrumented-input.js';
import { capMemoryOrDefault } from '../../runtime/memory-cap.js';
import { spmdSummary, ranksTable } from '../../report/ranks-report.js';

export async function runAction(
  file: string,
  options: RunCliOptions & InstrumentCliOptions & LayoutCliOptions,
  command: Command,
): Promise<void> {
  const run = parseRunOptions(options, command.args.slice(1));
  const limitPages = parseMemoryLimitPages(options);
  const original = readWasmFile(file);
  const programBase = programBaseOf(file, original);
  const bytes = capMemoryOrDefault(original, file, limitPages);
  const outcome = await runModule({
    file,
    bytes,
    invoke: run.invoke,
    args: run.args,
    argv: run.argv,
    repeat: run.repeat,
    timeoutMs: run.timeoutMs,
    programBase,
    wasi: run.wasi,
    ...(run.ranks !== undefined ? { ranks: run.ranks } : {}),
  });
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
    return spmd ? `${text}\n\n${ranksTable(spmd, tableLayout(options).width)}` : text;
  });
}
