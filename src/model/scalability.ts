// Scalability bugs: call paths that grow faster than they should. By default ('auto') "should" is
// the growth of the program's main work, the call paths that make up half of the metric at the
// largest measured point: a call path that grows faster than that will take over at scale, which
// is what a user calls a scalability bug. It is flagged when it also matters at the target (at
// least 1% of the metric's total there). A number t instead flags any growth worse than x^t.
import { evaluateModel } from './format.js';
import { sameExponent } from './exponents.js';
import type { Term } from './types.js';

export interface Growth {
  exponent: number;
  log: number;
}

export interface GrowthThreshold {
  /** 'auto': the growth of the main work; a number t: x^t for every parameter (1 = linear). */
  default: number | 'auto';
  perParam: Record<string, number>;
}

export const DEFAULT_GROWTH: GrowthThreshold = { default: 'auto', perParam: {} };

/** Share of the metric at the largest measured point that counts as the program's main work. */
export const MAIN_WORK_SHARE = 0.5;
/** Smallest share of the metric's total at the target for an 'auto' scalability bug. */
export const MIN_BUG_SHARE = 0.01;

export function compareGrowth(a: Growth, b: Growth): number {
  if (!sameExponent(a.exponent, b.exponent)) return a.exponent - b.exponent;
  return a.log - b.log;
}

/** Growth worse than x^threshold: a larger exponent, or the same with a logarithm. */
export function exceeds(growth: Growth, threshold: number): boolean {
  return compareGrowth(growth, { exponent: threshold, log: 0 }) > 0;
}

/** The leading growth of the model in each parameter: the largest (exponent, log) of a growing term. */
export function growthOf(terms: readonly Term[]): Record<string, Growth> {
  const growth: Record<string, Growth> = {};
  for (const term of terms) {
    if (term.coefficient <= 0) continue;
    for (const factor of term.factors) {
      const current = growth[factor.param];
      if (!current || compareGrowth(factor, current) > 0)
        growth[factor.param] = { exponent: factor.exponent, log: factor.log };
    }
  }
  return growth;
}

export interface ScalabilityInput {
  callpath: string;
  terms: Term[];
  growth: Record<string, Growth>;
  /** The model's value at the target. */
  prediction: number;
}

/**
 * The growth of the main work per parameter: the fewest call paths, largest first at `reference`,
 * that make up MAIN_WORK_SHARE of the metric there, and the fastest growth among them.
 */
export function mainWorkGrowth(
  models: readonly ScalabilityInput[],
  reference: Readonly<Record<string, number>>,
  params: readonly string[],
): Record<string, Growth> {
  const valued = models
    .map((model) => ({ model, value: Math.max(0, evaluateModel(model.terms, reference)) }))
    .sort((a, b) => b.value - a.value);
  const total = valued.reduce((sum, entry) => sum + entry.value, 0);
  const growth: Record<string, Growth> = Object.fromEntries(params.map((p) => [p, { exponent: 0, log: 0 }]));
  let covered = 0;
  for (const { model, value } of valued) {
    if (total > 0 && covered >= MAIN_WORK_SHARE * total) break;
    covered += value;
    for (const [p, g] of Object.entries(model.growth)) if (!growth[p] || compareGrowth(g, growth[p]) > 0) growth[p] = g;
  }
  return growth;
}

/** `scalability-bug:p` flags of each model (same order as `models`), for one metric. */
export function scalabilityFlags(
  models: readonly ScalabilityInput[],
  threshold: GrowthThreshold,
  mainWork: Readonly<Record<string, Growth>> | undefined,
): string[][] {
  const total = models.reduce((sum, model) => sum + Math.max(0, model.prediction), 0);
  return models.map((model) => {
    const flags: string[] = [];
    for (const [p, g] of Object.entries(model.growth)) {
      const fixed = threshold.perParam[p] ?? (threshold.default === 'auto' ? undefined : threshold.default);
      if (fixed !== undefined) {
        if (exceeds(g, fixed)) flags.push(`scalability-bug:${p}`);
        continue;
      }
      const main = mainWork?.[p] ?? { exponent: 0, log: 0 };
      if (compareGrowth(g, main) > 0 && model.prediction >= MIN_BUG_SHARE * total) flags.push(`scalability-bug:${p}`);
    }
    return flags;
  });
}
