// The prior checks of the model search (search.ts): when the model within the prior (the loop
// structure taint found) explains the measurements much worse than the best model of all, which
// of its limits the measurements contradict.
import { loopDepth } from './exponents.js';
import { unionOf } from './search-fit.js';
import type { Fit, MaskPrior, SearchOptions } from './search.js';

/** What the measurements demand beyond the prior (all empty/false when the prior explains them). */
export interface PriorVerdict {
  /** Parameters the unrestricted model uses that the prior excludes. */
  contention: number[];
  /** The unrestricted model combines allowed parameters in a way the prior excludes, or nothing else explains the gap. */
  interaction: boolean;
  /** Parameters whose factor grows faster than their loop depth allows. */
  beyondNest: number[];
  /** The restricted model explains the data (within `contentionThreshold`). */
  explains: boolean;
}

export function priorVerdict(
  restricted: Fit,
  unrestricted: Fit,
  prior: MaskPrior,
  depths: readonly number[] | undefined,
  m: number,
  options: SearchOptions,
): PriorVerdict {
  const contention: number[] = [];
  const beyondNest: number[] = [];
  // Negated so that a NaN score counts as explained, as it always has.
  if (!(restricted.score - unrestricted.score > options.contentionThreshold))
    return { contention, interaction: false, beyondNest, explains: true };
  let interaction = false;
  const allowedParams = unionOf(prior.allowed);
  const used = unionOf(unrestricted.masks);
  for (let l = 0; l < m; l++) if (used & (1 << l) && !(allowedParams & (1 << l))) contention.push(l);
  const combines = unrestricted.masks.some((mask) => !prior.allowed.includes(mask));
  if (contention.length === 0 && combines) interaction = true;
  if (contention.length === 0 && !combines && depths) {
    for (let l = 0; l < m; l++) {
      const factor = unrestricted.factors[l];
      if (factor && depths[l]! > 0 && loopDepth(factor.exponent, factor.log) > depths[l]!) beyondNest.push(l);
    }
  }
  if (contention.length === 0 && !combines && beyondNest.length === 0) interaction = true;
  return { contention, interaction, beyondNest, explains: false };
}
