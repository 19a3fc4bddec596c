// The blame report (issue #14): per blame point, the program variables the sampled work went into.
// `taintlens blame --json` prints it; `taintlens analyze` puts it in its report.

export type BlameVariableKind = 'local' | 'parameter' | 'global' | 'heap' | 'static' | 'stack' | 'other';

export interface BlamedVariable {
  /** Name from the name section or debug info; otherwise the container with its allocation site. */
  name: string;
  kind: BlameVariableKind;
  /** Size of the storage the variable names (container bytes for heap/static/stack), null when unknown. */
  bytes: number | null;
  /** Call path of the allocation for heap containers ("main->make_matrix->malloc"), else null. */
  allocationSite: string | null;
  samples: number;
  /** Share of the blame point's samples, 0–100. */
  percent: number;
  /**
   * Added by #14's implementation: for a struct (or object) whose fields point to containers, the
   * blame per field (container resolution, Rutar & Hollingsworth §2.4); absent otherwise.
   */
  fields?: Array<{ name: string; samples: number; percent: number }>;
  /** On the "other" row: what it consists of (why that work has no variable, and the variables folded into it). */
  parts?: Array<{ why: string; samples: number; percent: number }>;
  /**
   * On the "other" row: the callees whose own variables (locals, stack frames) hold work that goes
   * no further up, by samples (Rutar & Hollingsworth §2.6: blame stops there); the largest are
   * reported as blame points of their own.
   */
  stopsIn?: Array<{ function: string; samples: number; percent: number }>;
}

export interface BlamePoint {
  /** Function name of the blame point (the entry function by default). */
  function: string;
  /** Samples taken while the blame point was on the call stack. */
  samples: number;
  /** Sorted by samples, descending; the last row may be `{ name: 'other', kind: 'other' }`. */
  variables: BlamedVariable[];
  /** A blame point found by the analysis: a callee where at least a tenth of the entry function's blame stops. */
  automatic?: boolean;
}

export interface BlameReport {
  schema: 'taintlens/blame@1';
  module: string;
  /** Instructions between samples. */
  period: number;
  totalSamples: number;
  blamePoints: BlamePoint[];
}
