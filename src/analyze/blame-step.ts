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

export async function runBlameStep(
  modulePath: string,
  options: BlameOptions,
  analysis: BlameAnalysis = blameAnalysis,
): Promise<BlameOutcome> {
  return { report: await analysis(modulePath, options), missing: null };
}
