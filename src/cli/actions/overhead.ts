// `taintlens overhead`'s action: measures every instrumentation mode on the spec's points and prints
// the ratios and the models each mode's data gives.
import { runHostOf, type WasiCliOptions } from '../wasi-options.js';
import { parseContextTreeBytes } from '../instrument-options.js';
import { startProgress } from '../../util/progress.js';
import { emit } from '../output.js';
import { renderTable } from '../../report/table.js';
import { pathTail } from '../../report/names.js';
import { tableLayout, type LayoutCliOptions } from '../layout-options.js';
import { UserError } from '../../util/errors.js';
import { readSpec } from '../../experiment/spec.js';
import { readWasmFile } from '../../../instrument/wasm-file.js';
import { refuseInstrumented } from '../../../instrument/instrumented.js';
import { measureOverhead, OVERHEAD_MODES } from '../../experiment/overhead.js';
import { formatRoundRange } from '../../report/html/format.js';

interface OverheadOptions extends LayoutCliOptions, WasiCliOptions {
  contextTree?: string;
  rounds?: string;
  json?: boolean;
}

export async function overheadAction(specFile: string, options: OverheadOptions): Promise<void> {
  const spec = readSpec(specFile);
  const rounds = options.rounds === undefined ? spec.repetitions : Number(options.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new UserError(`--rounds must be a whole number ≥ 1, got '${options.rounds}'`, 2);
  const bytes = readWasmFile(spec.module);
  refuseInstrumented(bytes, spec.module);
  const points = spec.design === 'auto' ? null : spec.parameters.reduce((n, p) => n * p.values.length, 1);
  const progress = startProgress(
    points === null ? 0 : points * rounds,
    `overhead (${OVERHEAD_MODES.join(', ')})`,
    options.json !== true && process.stderr.isTTY === true,
  );
  let report: Awaited<ReturnType<typeof measureOverhead>>;
  try {
    report = await measureOverhead(
      { ...spec, file: spec.module, bytes, ...runHostOf(options, parseContextTreeBytes(options)) },
      rounds,
      progress,
    );
  } finally {
    progress.stop();
  }
  emit(options.json === true, report, () => {
    const lines = [
      `${spec.module}: ${report.points} point(s), ${report.rounds} alternating round(s); runtime ÷ none from the sum of each point's median`,
      renderTable(
        report.modes,
        [
          { header: 'mode', value: (m) => m.mode },
          { header: 'functions', value: (m) => m.instrumentedFunctions },
          { header: 'median ms', value: (m) => m.medianMs.toFixed(3), align: 'right' },
          { header: '÷ none', value: (m) => `${m.ratio.toFixed(3)}×`, align: 'right' },
          { header: 'overhead', value: (m) => `${((m.ratio - 1) * 100).toFixed(1)}%`, align: 'right' },
          {
            header: 'over rounds',
            value: (m) => formatRoundRange(m) ?? '-',
          },
        ],
        tableLayout(options),
      ),
    ];
    if (report.rounds < 2) lines.push('one round: no spread to tell overhead from noise (--rounds 3 or more)');
    if (report.fullOverSelective !== null) lines.push(`full ÷ selective: ${report.fullOverSelective.toFixed(2)}×`);
    lines.push(
      `none is the module relocated as instrumentation relocates it, without regions; the original takes ${report.relocation.originalMs.toFixed(3)} ms (none ÷ original ${report.relocation.ratio.toFixed(3)}×)`,
    );
    for (const mode of report.modes) {
      if (mode.dropped.length > 0 && mode.mode === 'default')
        lines.push(`default left out: ${mode.dropped.join(', ')} (${mode.rule})`);
    }
    for (const [mode, models] of Object.entries(report.models)) {
      lines.push('', `models under ${mode} (time ms, exclusive; beside exact instruction counts):`);
      lines.push(
        renderTable(
          models,
          [
            { header: 'call path', value: (m) => m.callpath, shrink: pathTail, min: 16, shrinkOrder: 0 },
            { header: 'share', value: (m) => `${(m.share * 100).toFixed(1)}%`, align: 'right' },
            { header: 'time', value: (m) => m.time, shrink: 'wrap', min: 16 },
            { header: 'instructions', value: (m) => m.instructions, shrink: 'wrap', min: 16 },
            { header: 'flag', value: (m) => (m.changed ? `changed (${m.changed})` : ''), shrink: 'wrap', min: 8 },
          ],
          tableLayout(options),
        ),
      );
    }
    return lines.join('\n');
  });
}
