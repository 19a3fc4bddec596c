// `taintlens overhead SPEC`: runtime of the spec's points under none, full, default and selective
// instrumentation, and the models each mode's data gives beside the instruction-count models.
import type { Command } from 'commander';
import { startProgress } from '../../util/progress.js';
import { emit } from '../output.js';
import { renderTable } from '../../report/table.js';
import { UserError } from '../../util/errors.js';

import { addWasiOptions, runHostOf, type WasiCliOptions } from '../wasi-options.js';
import { addContextTreeOption, parseContextTreeBytes } from '../instrument-options.js';

interface OverheadOptions extends WasiCliOptions {
  contextTree?: string;
  rounds?: string;
  json?: boolean;
}

export function registerOverhead(program: Command): void {
  addContextTreeOption(addWasiOptions(program.command('overhead <spec>')
    .description("compare instrumentation modes on an experiment spec's points: runtime ÷ none, and whether each mode's models match the instruction counts")
    .option('--rounds <r>', 'alternating rounds (default: the spec\'s repetitions)')
    .option('--json', 'machine-readable output: {"modes":[{"mode","instrumentedFunctions","ratio"}],"models":{...}}')))
    .action(async (specFile: string, options: OverheadOptions) => {
      const { readSpec } = await import('../../experiment/spec.js');
      const { readWasmFile } = await import('../../../instrument/module-io.js');
      const { refuseInstrumented } = await import('../../../instrument/instrumented.js');
      const { measureOverhead, OVERHEAD_MODES } = await import('../../experiment/overhead.js');
      const spec = readSpec(specFile);
      const rounds = options.rounds === undefined ? spec.repetitions : Number(options.rounds);
      if (!Number.isInteger(rounds) || rounds < 1) throw new UserError(`--rounds must be a whole number ≥ 1, got '${options.rounds}'`, 2);
      const bytes = readWasmFile(spec.module);
      refuseInstrumented(bytes, spec.module);
      const points = spec.design === 'auto' ? null : spec.parameters.reduce((n, p) => n * p.values.length, 1);
      const progress = startProgress(points === null ? 0 : points * rounds, `overhead (${OVERHEAD_MODES.join(', ')})`, options.json !== true && process.stderr.isTTY === true);
      let report: Awaited<ReturnType<typeof measureOverhead>>;
      try {
        report = await measureOverhead({ ...spec, file: spec.module, bytes, ...runHostOf(options, parseContextTreeBytes(options)) }, rounds, progress);
      } finally {
        progress.stop();
      }
      emit(options.json === true, report, () => {
        const lines = [
          `${spec.module}: ${report.points} point(s), ${report.rounds} alternating round(s); runtime ÷ none from the sum of each point's median`,
          renderTable(report.modes, [
            { header: 'mode', value: (m) => m.mode },
            { header: 'functions', value: (m) => m.instrumentedFunctions },
            { header: 'median ms', value: (m) => m.medianMs.toFixed(3), align: 'right' },
            { header: '÷ none', value: (m) => `${m.ratio.toFixed(3)}×`, align: 'right' },
            { header: 'overhead', value: (m) => `${((m.ratio - 1) * 100).toFixed(1)}%`, align: 'right' },
          ]),
        ];
        if (report.fullOverSelective !== null) lines.push(`full ÷ selective: ${report.fullOverSelective.toFixed(2)}×`);
        lines.push(`none is the module relocated as instrumentation relocates it, without regions; the original takes ${report.relocation.originalMs.toFixed(3)} ms (none ÷ original ${report.relocation.ratio.toFixed(3)}×)`);
        for (const mode of report.modes) {
          if (mode.dropped.length > 0 && mode.mode === 'default') lines.push(`default left out: ${mode.dropped.join(', ')} (${mode.rule})`);
        }
        for (const [mode, models] of Object.entries(report.models)) {
          lines.push('', `models under ${mode} (time ms, exclusive; beside exact instruction counts):`);
          lines.push(renderTable(models, [
            { header: 'call path', value: (m) => m.callpath },
            { header: 'share', value: (m) => `${(m.share * 100).toFixed(1)}%`, align: 'right' },
            { header: 'time', value: (m) => m.time },
            { header: 'instructions', value: (m) => m.instructions },
            { header: 'flag', value: (m) => (m.changed ? `changed (${m.changed})` : '') },
          ]));
        }
        return lines.join('\n');
      });
    });
}
