// `taintlens experiment`'s action: runs the spec's campaign into DIR, or with --slurm submits it;
// --status, --collect and --slurm-task go to experiment-slurm.ts.
import { runHostOf, type WasiCliOptions } from '../wasi-options.js';
import { parseContextTreeBytes } from '../instrument-options.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProgress } from '../../util/progress.js';
import { UserError } from '../../util/errors.js';
import { emit } from '../output.js';
import { describeSelection, parseExperimentOptions, type ExperimentCliOptions } from '../experiment-options.js';
import { renderTable } from '../../report/table.js';
import { pathTail } from '../../report/names.js';
import { tableLayout, type LayoutCliOptions } from '../layout-options.js';
import {
  collectSlurm,
  runSlurmArrayTask,
  showSlurmStatus,
  submitToSlurm,
  type SlurmCliOptions,
} from './experiment-slurm.js';
import { readSpec } from '../../experiment/spec.js';
import { readWasmFile } from '../../../instrument/wasm-file.js';
import { refuseInstrumented } from '../../../instrument/instrumented.js';
import { runExperiment } from '../../experiment/experiment.js';
import { prepareExperimentDir, recordSpec, writeEnvironment, writeSummary } from '../../experiment/experiment-dir.js';
import { interruptible, keptCampaign } from '../interrupt.js';
import { keptPoints } from '../../experiment/resume.js';
import { readRounds } from '../../experiment/slurm/round.js';
import { refuseUncollected } from '../../experiment/slurm/measured.js';

interface ExperimentOptions extends ExperimentCliOptions, SlurmCliOptions, LayoutCliOptions, WasiCliOptions {
  contextTree?: string;
  out?: string;
  slurm?: boolean;
  status?: string;
  collect?: string;
  slurmTask?: string;
}

/** Which of the command's forms was asked for; anything else is bad usage. */
function chooseForm(
  spec: string | undefined,
  options: ExperimentOptions,
): 'run' | 'slurm' | 'status' | 'collect' | 'task' {
  const forms = [
    ...(options.status !== undefined ? ['--status'] : []),
    ...(options.collect !== undefined ? ['--collect'] : []),
    ...(options.slurmTask !== undefined ? ['--slurm-task'] : []),
  ];
  if (forms.length > 1) throw new UserError(`give one of ${forms.join(', ')}`, 2);
  const slurmOnly = (['partition', 'time', 'chunk'] as const).filter((o) => options[o] !== undefined);
  if (forms.length === 1) {
    if (spec !== undefined)
      throw new UserError(`${forms[0]} takes no spec (it reads the campaign folder), got '${spec}'`, 2);
    const extra = [
      ...(options.slurm ? ['--slurm'] : []),
      ...(options.out !== undefined ? ['--out'] : []),
      ...(['partition', 'time', 'chunk', 'trace', 'jobs', 'design'] as const)
        .filter((o) => options[o] !== undefined)
        .map((o) => `--${o}`),
    ];
    if (extra.length > 0) throw new UserError(`${forms[0]} goes alone, without ${extra.join(', ')}`, 2);
    return forms[0] === '--status' ? 'status' : forms[0] === '--collect' ? 'collect' : 'task';
  }
  if (spec === undefined)
    throw new UserError("missing required argument 'spec' (or give --status DIR / --collect DIR)", 2);
  if (options.out === undefined) throw new UserError("required option '--out <dir>' not specified", 2);
  if (!options.slurm && slurmOnly.length > 0) throw new UserError(`--${slurmOnly[0]} goes with --slurm`, 2);
  return options.slurm ? 'slurm' : 'run';
}

export async function experimentAction(specFile: string | undefined, options: ExperimentOptions): Promise<void> {
  const form = chooseForm(specFile, options);
  const json = options.json === true;
  if (form === 'status') return showSlurmStatus(options.status!, json);
  if (form === 'collect') return collectSlurm(options.collect!, json);
  if (form === 'task') return runSlurmArrayTask(options.slurmTask!, json);
  const out = options.out!;
  const spec = readSpec(specFile!);
  const cli = parseExperimentOptions({ ...options, mode: spec.mode });
  const bytes = readWasmFile(spec.module);
  refuseInstrumented(bytes, spec.module);
  const host = runHostOf(options, parseContextTreeBytes(options));
  if (form === 'slurm' && Object.keys(host).length > 0)
    throw new UserError(
      '--dir, --dir-rw, --stdin, --env and --context-tree do not reach SLURM array tasks: run the campaign locally',
      2,
    );
  if (form === 'run') {
    refuseUncollected(out, readRounds(out), join(out, 'measurements.jsonl'));
  }
  const paths = prepareExperimentDir(out);
  recordSpec(paths, JSON.parse(readFileSync(specFile!, 'utf8')));
  writeEnvironment(paths);
  const definition = {
    ...spec,
    file: spec.module,
    bytes,
    trace: options.trace === undefined ? spec.trace : cli.trace,
    design: options.design === undefined ? spec.design : cli.design,
    ...host,
  };
  if (form === 'slurm')
    return submitToSlurm(
      definition,
      specFile!,
      { dir: out, measurements: paths.measurements },
      options.jobs === undefined ? 1 : cli.jobs,
      options,
    );
  const run = await interruptible(
    () => keptCampaign(keptPoints(paths.measurements), paths.measurements),
    () =>
      runExperiment(definition, {
        output: paths.measurements,
        statsOutput: paths.points,
        jobs: cli.jobs,
        progress: (points) =>
          startProgress(points, 'experiment', options.json !== true && process.stderr.isTTY === true),
      }),
  );
  const summary = writeSummary(paths, spec.module, run);
  const { campaign, design } = run;
  emit(
    options.json === true,
    {
      schema: 'taintlens/experiment@1',
      spec: specFile,
      out,
      ...campaign,
      measurements: paths.measurements,
      summary: paths.summary,
      mode: summary.mode,
      instrumentedFunctions: summary.instrumentedFunctions,
      dropped: summary.dropped,
      design: summary.design,
      volume: summary.volume,
    },
    () => {
      const lines = [
        `${paths.measurements}: ${campaign.measured} point(s) measured, ${campaign.resumed} already there, ${campaign.lines} line(s) written`,
        ...describeSelection(run.selection),
        `design: ${design.reason}${design.kind === 'lines' ? `; ${design.points.length} of ${design.gridPoints} points, ${design.runsSaved} run(s) saved` : ''}`,
      ];
      const last = summary.points.at(-1);
      if (last && last.regions.length > 0) {
        const ms = (v: number | null) => (v === null ? '-' : v < 0.01 ? v.toExponential(2) : v.toFixed(3));
        lines.push(
          '',
          `regions at ${Object.entries(last.params)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')} (ms; later visits: after the first):`,
        );
        lines.push(
          renderTable(
            last.regions,
            [
              { header: 'call path', value: (r) => r.callpath, shrink: pathTail, min: 16, shrinkOrder: 0 },
              { header: 'visits', value: (r) => r.visits },
              { header: 'inclusive', value: (r) => ms(r.inclusiveMs), align: 'right' },
              { header: 'exclusive', value: (r) => ms(r.exclusiveMs), align: 'right' },
              { header: 'first', value: (r) => ms(r.firstVisitMs), align: 'right' },
              { header: 'mean', value: (r) => ms(r.later.meanMs), align: 'right' },
              { header: 'cv', value: (r) => (r.later.cv === null ? '-' : r.later.cv.toFixed(2)), align: 'right' },
              { header: 'min', value: (r) => ms(r.later.minMs), align: 'right' },
              { header: 'max', value: (r) => ms(r.later.maxMs), align: 'right' },
            ],
            tableLayout(options),
          ),
        );
        const v = summary.volume;
        lines.push(
          '',
          `volume: summary ${v.summaryBytes.toLocaleString('en-US')} B, trace ring ${v.traceBytes.toLocaleString('en-US')} B; a full trace would take ${v.fullTraceBytes.toLocaleString('en-US')} B`,
        );
      }
      lines.push(`${paths.summary} written`);
      return lines.join('\n');
    },
  );
}
