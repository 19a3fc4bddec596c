// `taintlens experiment SPEC --out DIR`: the spec front end of the experiment engine.
import type { Command } from 'commander';
import { startProgress } from '../../util/progress.js';
import { emit } from '../output.js';
import { addExperimentOptions, describeSelection, parseExperimentOptions, type ExperimentCliOptions } from '../experiment-options.js';
import { renderTable } from '../../report/table.js';

interface ExperimentOptions extends ExperimentCliOptions {
  out: string;
  json?: boolean;
}

export function registerExperiment(program: Command): void {
  addExperimentOptions(
    program.command('experiment <spec>')
      .description('run the measurement campaign a JSON spec describes; writes DIR/measurements.jsonl (Extra-P JSON Lines), DIR/summary.json, the spec and the environment')
      .requiredOption('--out <dir>', 'folder for the results; an interrupted campaign in it resumes')
      .option('--json', 'machine-readable output'),
    null,
  ).action(async (specFile: string, options: ExperimentOptions) => {
    const { readSpec } = await import('../../experiment/spec.js');
    const { readWasmFile } = await import('../../../instrument/module-io.js');
    const { refuseInstrumented } = await import('../../../instrument/instrumented.js');
    const { runExperiment } = await import('../../experiment/experiment.js');
    const { prepareExperimentDir, writeEnvironment, writeSummary } = await import('../../experiment/experiment-dir.js');
    const { writeJsonAtomic } = await import('../../util/atomic-write.js');
    const { readFileSync } = await import('node:fs');
    const spec = readSpec(specFile);
    const cli = parseExperimentOptions({ ...options, mode: spec.mode });
    const bytes = readWasmFile(spec.module);
    refuseInstrumented(bytes, spec.module);
    const paths = prepareExperimentDir(options.out);
    writeJsonAtomic(paths.spec, JSON.parse(readFileSync(specFile, 'utf8')));
    writeEnvironment(paths);
    const run = await runExperiment({
      ...spec, file: spec.module, bytes,
      trace: options.trace === undefined ? spec.trace : cli.trace,
      design: options.design === undefined ? spec.design : cli.design,
    }, {
      output: paths.measurements, statsOutput: paths.points, jobs: cli.jobs,
      progress: (points) => startProgress(points, 'experiment', options.json !== true && process.stderr.isTTY === true),
    });
    const summary = writeSummary(paths, spec.module, run);
    const { campaign, design } = run;
    emit(options.json === true, {
      schema: 'taintlens/experiment@1', spec: specFile, out: options.out, ...campaign,
      measurements: paths.measurements, summary: paths.summary,
      mode: summary.mode, instrumentedFunctions: summary.instrumentedFunctions, dropped: summary.dropped, design: summary.design, volume: summary.volume,
    }, () => {
      const lines = [
        `${paths.measurements}: ${campaign.measured} point(s) measured, ${campaign.resumed} already there, ${campaign.lines} line(s) written`,
        ...describeSelection(run.selection),
        `design: ${design.reason}${design.kind === 'lines' ? `; ${design.points.length} of ${design.gridPoints} points, ${design.runsSaved} run(s) saved` : ''}`,
      ];
      const last = summary.points.at(-1);
      if (last && last.regions.length > 0) {
        const ms = (v: number | null) => (v === null ? '-' : v < 0.01 ? v.toExponential(2) : v.toFixed(3));
        lines.push('', `regions at ${Object.entries(last.params).map(([k, v]) => `${k}=${v}`).join(' ')} (ms; later visits: after the first):`);
        lines.push(renderTable(last.regions, [
          { header: 'call path', value: (r) => r.callpath },
          { header: 'visits', value: (r) => r.visits },
          { header: 'inclusive', value: (r) => ms(r.inclusiveMs), align: 'right' },
          { header: 'exclusive', value: (r) => ms(r.exclusiveMs), align: 'right' },
          { header: 'first', value: (r) => ms(r.firstVisitMs), align: 'right' },
          { header: 'mean', value: (r) => ms(r.later.meanMs), align: 'right' },
          { header: 'cv', value: (r) => (r.later.cv === null ? '-' : r.later.cv.toFixed(2)), align: 'right' },
          { header: 'min', value: (r) => ms(r.later.minMs), align: 'right' },
          { header: 'max', value: (r) => ms(r.later.maxMs), align: 'right' },
        ]));
        const v = summary.volume;
        lines.push('', `volume: summary ${v.summaryBytes.toLocaleString('en-US')} B, trace ring ${v.traceBytes.toLocaleString('en-US')} B; a full trace would take ${v.fullTraceBytes.toLocaleString('en-US')} B`);
      }
      lines.push(`${paths.summary} written`);
      return lines.join('\n');
    });
  });
}
