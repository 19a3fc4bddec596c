// The models table's status column and the flags a reader should act on (issue 28.5).
//
// Every row gets one status in plain words (exact, fit, noisy, no closed form, too short); the
// flags column keeps only what changes what the user should do (a scalability bug, contention, a
// design that cannot support the model, …). Flags that only say how the model was found (refined,
// counts-shaped) or that the status already says (unreliable, inexact, too-short) stay in the JSON.
// beyond-nest on an exact count is not a fault: a flattened loop (`for i < size*size*size`) is one
// loop over size to the taint analysis, and the count is what it is (issue 24, cause 7).
import type { CallpathModel } from './modeler.js';

export type ModelStatus = 'exact' | 'fit' | 'noisy' | 'no closed form' | 'too short';

export const STATUS_TEXT: Record<ModelStatus, string> = {
  exact: 'a closed form that reproduces every measured count',
  fit: 'the best model of the measurements; its SMAPE says how closely it fits',
  noisy: 'the repetitions vary by more than 10% (coefficient of variation): take the model as a rough trend',
  'no closed form':
    'the counts are exact but no closed form of the space reproduces them all: the best inexact fit is shown',
  'too short':
    'the call path takes under a millisecond per run: too short to time, its median is shown (model instructions instead)',
};

/** Flags the table never shows: the status says them, or they only say how the model was found. */
const SAID_BY_STATUS = new Set(['unreliable', 'inexact', 'too-short', 'refined', 'counts-shaped']);
/**
 * Flags about how a model grows against the code or the design: a call path too short to time has
 * no model (its median is shown), so they say nothing there.
 */
const ABOUT_A_MODEL = new Set([
  'too-narrow',
  'contention',
  'branch',
  'interaction',
  'beyond-nest',
  'lower-order',
  'scalability-bug',
  'counts-disagree',
]);

/** What `modelStatus` and `actionFlags` read of a model. */
export type StatusInput = Pick<CallpathModel, 'exact' | 'flags'>;

export function modelStatus(model: StatusInput): ModelStatus {
  if (model.exact) return 'exact';
  if (model.flags.includes('too-short')) return 'too short';
  if (model.flags.includes('inexact')) return 'no closed form';
  if (model.flags.includes('unreliable')) return 'noisy';
  return 'fit';
}

/** The flags of a row that change what the user should do. */
export function actionFlags(model: StatusInput): string[] {
  const tooShort = model.flags.includes('too-short');
  return model.flags.filter((flag) => {
    const kind = flag.split(':')[0]!;
    if (SAID_BY_STATUS.has(kind)) return false;
    if (tooShort && ABOUT_A_MODEL.has(kind)) return false;
    return !(kind === 'beyond-nest' && model.exact);
  });
}
