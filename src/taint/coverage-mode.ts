// The taint analysis' coverage modes (coverage.ts), apart so the CLI's option parsing loads no runtime.
export const COVERAGE_MODES = ['auto', 'on', 'off'] as const;
/** on: instrument only the functions a first run enters; off: all; auto: on for modules of COVERAGE_MIN_BYTES and more. */
export type CoverageMode = (typeof COVERAGE_MODES)[number];

/**
 * Below this size instrumenting every function costs less than the extra run (a 48 KiB C program
 * takes 2.5 s of taint instrumentation, cached after the first time; nextpnr's 1.8 MB 80 s).
 */
export const COVERAGE_MIN_BYTES = 1 << 20;

export function coverageApplies(mode: CoverageMode, moduleBytes: number): boolean {
  return mode === 'on' || (mode === 'auto' && moduleBytes >= COVERAGE_MIN_BYTES);
}
