// Step 4a of `taintlens analyze`: the blame table for one configuration (the base point), from the
// blame analysis (src/blame/blame.ts), whose report contract is src/blame/types.ts.
import type { BlameReport } from '../blame/types.js';
import { blameModule } from '../blame/blame.js';
import type { WasiConfig } from '../runtime/protocol.js';

/** The run options of the blame analysis. */
export interface BlameOptions {
  /** The module's bytes, already read by the analysis. */
  bytes?: Uint8Array;
  invoke: string | null;
  args: string[];
  argv: string[];
  timeoutMs: number;
  /** Instructions between samples. */
  period: number;
  /** Functions to blame at (empty: the entry function). */
  blamePoints: string[];
  wasi?: WasiConfig;
  instrument?: { contextBytes: number };
}

export type BlameAnalysis = (modulePath: string, options: BlameOptions) => Promise<BlameReport>;

/** The blame report, or why there is none (the report's blame section says so). */
export type BlameOutcome = { report: BlameReport; missing: null } | { report: null; missing: string };

/** The blame analysis of src/blame/, reduced to the report contract (no guest output, no run details). */
const blameAnalysis: BlameAnalysis = async (modulePath, options) => {
  const { schema, module, period, totalSamples, blamePoints } = await blameModule(modulePath, options);
  return { schema, module, period, totalSamples, blamePoints };
};

/**
 * Samples a blame table needs before its shares say anything: with n samples a share's standard
 * error is up to 0.5/√n, 3.5 points at 200.
 */
export const MIN_BLAME_SAMPLES = 200;

/**
 * The blame report at the configured period; where that gives fewer than MIN_BLAME_SAMPLES
 * samples (a small base point), once more at a period short enough for them.
 */
export async function runBlameStep(
  modulePath: string,
  options: BlameOptions,
  analysis: BlameAnalysis = blameAnalysis,
): Promise<BlameOutcome> {
  const first = await analysis(modulePath, options);
  if (first.totalSamples >= MIN_BLAME_SAMPLES || options.period <= 1) return { report: first, missing: null };
  const period = Math.max(1, Math.floor((options.period * Math.max(first.totalSamples, 1)) / (2 * MIN_BLAME_SAMPLES)));
  return { report: await analysis(modulePath, { ...options, period }), missing: null };
}
