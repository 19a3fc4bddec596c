// The leading term of a model and whether it shows on the measured grid: a triangular nest's n²
// term can outweigh its n³ term at every size measured, and then the data say little about n³.
import { evaluateModel, formatModel } from './format.js';
import type { Term } from './types.js';

/** Share of the model's value the leading terms must carry for them to "show". */
export const LEADING_SHARE = 0.5;

/** (exponent, log) of a term in one parameter; (0, 0) when absent. */
function powerIn(term: Term, param: string): [number, number] {
  const factor = term.factors.find((f) => f.param === param);
  return factor ? [factor.exponent, factor.log] : [0, 0];
}

/** a grows at least as fast as b in every parameter. */
function dominates(a: Term, b: Term): boolean {
  const params = new Set([...a.factors, ...b.factors].map((f) => f.param));
  for (const p of params) {
    const [ea, la] = powerIn(a, p);
    const [eb, lb] = powerIn(b, p);
    if (ea < eb || (ea === eb && la < lb)) return false;
  }
  return true;
}

/** The terms no other term outgrows in every parameter; the constant only when nothing grows. */
export function leadingTerms(terms: readonly Term[]): Term[] {
  const growing = terms.filter((term) => term.factors.length > 0 && term.coefficient !== 0);
  if (growing.length === 0) return terms.filter((term) => term.factors.length === 0).slice(0, 1);
  return growing.filter((term) => !growing.some((other) => other !== term && dominates(other, term)));
}

export function formatLeading(leading: readonly Term[]): string {
  return formatModel(leading.length > 0 ? leading : [{ coefficient: 0, factors: [] }]);
}

/**
 * The leading terms' share of the growing part of the model at a point: |leading| / Σ|growing
 * term|. A constant offset is left out: it hides no growth.
 */
export function leadingShare(
  terms: readonly Term[],
  leading: readonly Term[],
  at: Readonly<Record<string, number>>,
): number {
  let total = 0;
  for (const term of terms) if (term.factors.length > 0) total += Math.abs(evaluateModel([term], at));
  return total === 0 ? 1 : Math.abs(evaluateModel(leading, at)) / total;
}

/**
 * Where the leading terms would carry LEADING_SHARE of the model: the point reached by doubling
 * the parameters the leading terms range over from `from`; undefined beyond 2^30 times.
 */
export function leadingShowsAt(
  terms: readonly Term[],
  leading: readonly Term[],
  from: Readonly<Record<string, number>>,
): Record<string, number> | undefined {
  const grow = new Set(leading.flatMap((term) => term.factors.map((f) => f.param)));
  const at = { ...from };
  for (let step = 0; step <= 30; step++) {
    if (leadingShare(terms, leading, at) >= LEADING_SHARE) return at;
    for (const p of grow) at[p] = at[p]! * 2;
  }
  return undefined;
}
