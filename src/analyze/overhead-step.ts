// Step 4b of `taintlens analyze`: the overhead comparison (none / full / default / selective) on
// the experiment's points, by the overhead engine (src/experiment/overhead.ts).
import { measureOverhead, OVERHEAD_MODES, type ModeOverhead } from '../experiment/overhead.js';
import { startProgress } from '../util/progress.js';
import type { ExperimentDefinition } from '../experiment/experiment.js';

export interface OverheadStep {
  points: number;
  rounds: number;
  modes: Array<
    Pick<ModeOverhead, 'mode' | 'instrumentedFunctions' | 'ratio' | 'roundRange' | 'aboveNoise' | 'medianMs'>
  >;
  fullOverSelective: number | null;
  /** none ÷ the original module (memory relocation alone). */
  relocationRatio: number;
  /** Regions whose time model grows unlike their instruction-count model, per mode. */
  changedModels: Array<{ mode: string; callpath: string; changed: string }>;
}

/** Values per parameter the comparison keeps: the smallest, the middle and the largest. */
const OVERHEAD_VALUES = 3;

/**
 * The experiment with each parameter's values thinned to the smallest, middle and largest: the
 * ratios need the range, not every point, and every mode runs at every point in every round.
 */
export function overheadDefinition(definition: ExperimentDefinition): ExperimentDefinition {
  const thin = (values: number[]) => {
    if (values.length <= OVERHEAD_VALUES) return values;
    const sorted = [...values].sort((a, b) => a - b);
    return [sorted[0]!, sorted[Math.floor((sorted.length - 1) / 2)]!, sorted.at(-1)!];
  };
  return { ...definition, parameters: definition.parameters.map((p) => ({ ...p, values: thin(p.values) })) };
}

export async function runOverheadStep(
  definition: ExperimentDefinition,
  rounds: number,
  showProgress: boolean,
): Promise<OverheadStep> {
  const points = definition.parameters.reduce((n, p) => n * p.values.length, 1);
  const progress = startProgress(points * rounds, `overhead (${OVERHEAD_MODES.join(', ')})`, showProgress);
  try {
    const report = await measureOverhead(definition, rounds, progress);
    return {
      points: report.points,
      rounds: report.rounds,
      modes: report.modes.map(({ mode, instrumentedFunctions, ratio, roundRange, aboveNoise, medianMs }) => ({
        mode,
        instrumentedFunctions,
        ratio,
        roundRange,
        aboveNoise,
        medianMs,
      })),
      fullOverSelective: report.fullOverSelective,
      relocationRatio: report.relocation.ratio,
      changedModels: Object.entries(report.models).flatMap(([mode, models]) =>
        models.filter((m) => m.changed !== null).map((m) => ({ mode, callpath: m.callpath, changed: m.changed! })),
      ),
    };
  } finally {
    progress.stop();
  }
}
