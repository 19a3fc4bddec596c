// `taintlens analyze`: taint → experiment → models → blame and overhead → report, each step in its
// own module; this file only runs them in order, times them and writes the report.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { sha256Of } from '../util/hash.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/atomic-write.js';
import { runTaintStep } from './taint-step.js';
import { experimentDefinition, runExperimentStep, variedParameters } from './experiment-step.js';
import { runModelStep, targetOf } from './model-step.js';
import { runBlameStep } from './blame-step.js';
import { overheadDefinition, runOverheadStep } from './overhead-step.js';
import { cachedStep, inputKey } from './step-cache.js';
import { REPORT_SCHEMA, type AnalysisReport } from './report.js';
import { renderHtmlReport } from '../report/html/page.js';
import type { AnalysisConfig } from './config.js';
import { sharedProfiler, type LoopProfiler } from '../profile/profile-memo.js';
import type { ShadowGranularity } from '../../instrument/passes/shadow-placement.js';

import type { RunHost } from '../experiment/experiment.js';

export interface AnalyzeOptions {
  file: string;
  bytes: Uint8Array;
  config: AnalysisConfig;
  dir: string;
  /** Progress bars and step lines on stderr (a terminal only). */
  showProgress: boolean;
  jobs?: number;
  /** The loop profiler every step uses (default: one shared by the steps of this analysis). */
  profiler?: LoopProfiler;
  /** Shadow memory of the taint run (default: chosen from what is marked, src/taint/analyze.ts). */
  shadow?: ShadowGranularity;
  /** What the program gets from its host (--dir, --env, --stdin) and the context-tree size (--context-tree). */
  host?: RunHost;
}

export interface AnalysisFiles {
  report: string;
  html: string;
}

export async function analyze(options: AnalyzeOptions): Promise<{ report: AnalysisReport; files: AnalysisFiles }> {
  const { file, bytes, config, dir } = options;
  const say = (line: string) => {
    if (options.showProgress) process.stderr.write(`${line}\n`);
  };
  const seconds = { taint: 0, experiment: 0, models: 0, blame: 0, overhead: 0, total: 0 };
  const started = performance.now();
  const timed = async <T>(step: keyof typeof seconds, work: () => Promise<T> | T): Promise<T> => {
    const t = performance.now();
    try {
      return await work();
    } finally {
      seconds[step] = (performance.now() - t) / 1000;
    }
  };

  // Every step profiles through this one, so the base point and each measured point run once.
  const profiler = options.profiler ?? sharedProfiler();
  say('1/5 taint: which parameters drive which loops and functions');
  const host = options.host ?? {};
  const taint = await timed('taint', () =>
    runTaintStep(file, bytes, config, dir, { profiler, host, ...(options.shadow ? { shadow: options.shadow } : {}) }),
  );
  const parameters = variedParameters(config, taint.chosen);
  const definition = {
    ...experimentDefinition(
      file,
      bytes,
      config,
      parameters,
      { report: taint.reportFile, facts: taint.facts },
      profiler,
    ),
    ...host,
  };
  say(`2/5 experiment over ${parameters.map((p) => `${p.name} (${p.values.join(', ')})`).join(' × ')}`);
  const experiment = await timed('experiment', () =>
    runExperimentStep(definition, dir, options.showProgress, options.jobs ?? availableParallelism()),
  );
  say('3/5 models with the taint prior');
  const target = targetOf(parameters, config.target);
  const models = await timed('models', () =>
    runModelStep(experiment.measurements, taint.reportFile, parameters, target, config.plots),
  );
  say('4/5 blame at the base point');
  const base = Object.fromEntries(config.candidates.map((c) => [c.name, c.base]));
  const blame = await timed('blame', () =>
    config.blame === null
      ? { report: null, missing: 'blame is turned off in the config ("blame": false)' }
      : runBlameStep(file, {
          bytes,
          invoke: config.invoke,
          args: config.args,
          argv: config.argv,
          timeoutMs: config.timeoutMs,
          period: config.blame.period,
          blamePoints: config.blame.points,
          ...(host.wasi ? { wasi: host.wasi } : {}),
          ...(host.contextBytes !== undefined ? { instrument: { contextBytes: host.contextBytes } } : {}),
        }),
  );
  say('5/5 overhead: none, full, default, selective');
  const overheadConfig = config.overhead;
  const overhead =
    overheadConfig === null
      ? null
      : await timed('overhead', async () => {
          const thinned = overheadDefinition(definition);
          const key = inputKey({
            module: sha256Of(bytes),
            invoke: config.invoke,
            args: config.args,
            argv: config.argv,
            parameters: thinned.parameters,
            rounds: overheadConfig.rounds,
          });
          return (
            await cachedStep(dir, 'overhead', key, () =>
              runOverheadStep(thinned, overheadConfig.rounds, options.showProgress),
            )
          ).value;
        });
  seconds.total = (performance.now() - started) / 1000;
  const { reportFile, facts: _facts, ...taintFacts } = taint;
  const report: AnalysisReport = {
    schema: REPORT_SCHEMA,
    module: file,
    config: config.file,
    created: new Date().toISOString(),
    invoke: config.invoke,
    base,
    taint: { ...taintFacts, report: reportFile },
    experiment,
    models,
    blame: { point: base, report: blame.report, missing: blame.missing },
    overhead,
    seconds,
  };
  const files = { report: join(dir, 'report.json'), html: join(dir, 'report.html') };
  const html = await renderHtmlReport(report);
  writeJsonAtomic(files.report, report);
  writeFileAtomic(files.html, html);
  return { report, files };
}
