// The analysis report (DIR/report.json, schema taintlens/report@1): every number the terminal
// summary and report.html show, so the page can be checked against it.
import type { BlameReport } from '../blame/types.js';
import type { TaintStep } from './taint-step.js';
import type { ExperimentStep } from './experiment-step.js';
import type { ModelStep } from './model-step.js';
import type { OverheadStep } from './overhead-step.js';

export const REPORT_SCHEMA = 'taintlens/report@1';

export interface AnalysisReport {
  schema: typeof REPORT_SCHEMA;
  module: string;
  config: string;
  created: string;
  invoke: string | null;
  /** Every parameter's base value (where the taint, loop-profile and blame runs happen). */
  base: Record<string, number>;
  taint: Omit<TaintStep, 'reportFile' | 'facts'> & { report: string };
  experiment: ExperimentStep;
  models: ModelStep;
  blame: { point: Record<string, number>; report: BlameReport | null; missing: string | null };
  /** null when the config turns the comparison off. */
  overhead: OverheadStep | null;
  /** Wall-clock seconds per step. */
  seconds: Record<'taint' | 'experiment' | 'models' | 'blame' | 'overhead' | 'total', number>;
}
