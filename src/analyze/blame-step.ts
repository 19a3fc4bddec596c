// Step 4a of `taintlens analyze`: the blame table for one configuration (the base point), from the
// blame analysis of issue #14, whose report contract is src/blame/types.ts.
import type { BlameReport } from '../blame/types.js';

/** The run options of the blame analysis (`blameModule(modulePath, options)` of src/blame/blame.ts). */
export interface BlameOptions {
  invoke: string | null;
  args: string[];
  argv: string[];
  timeoutMs: number;
  /** Instructions between samples. */
  period: number;
  /** Functions to blame at (empty: the entry function). */
  blamePoints: string[];
}

export type BlameAnalysis = (modulePath: string, options: BlameOptions) => Promise<BlameReport>;

/** The blame report, or why there is none (the report's blame section says so). */
export type BlameOutcome = { report: BlameReport; missing: null } | { report: null; missing: string };

// ─── merge point ────────────────────────────────────────────────────────────────────────────────
// The one call site of the blame analysis. When src/blame/blame.ts lands, this becomes
//   import { blameModule } from '../blame/blame.js';
//   const blameAnalysis: BlameAnalysis | null = blameModule;
const blameAnalysis: BlameAnalysis | null = null;
// ────────────────────────────────────────────────────────────────────────────────────────────────

export async function runBlameStep(modulePath: string, options: BlameOptions, analysis: BlameAnalysis | null = blameAnalysis): Promise<BlameOutcome> {
  if (analysis === null) {
    return { report: null, missing: 'no blame analysis in this build of taintlens (the blame analysis of issue #14 is not merged yet)' };
  }
  return { report: await analysis(modulePath, options), missing: null };
}
