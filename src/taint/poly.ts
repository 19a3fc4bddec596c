// Dependency expressions as polynomials over parameter names: a set of monomials, each a sorted
// list of names (the empty list is the constant 1). Nesting multiplies, siblings add; formatting
// keeps only the dominant terms (`n + n*m` → `n*m`).

export type Monomial = string[];
/** A polynomial over parameter names: a set of monomials (sorted name lists; [] is the constant 1). */
export type Poly = Map<string, Monomial>;

const key = (m: Monomial) => m.join('*');

export function poly(...monos: Monomial[]): Poly {
  const p: Poly = new Map();
  for (const m of monos) p.set(key(m), m);
  return p;
}

export function add(a: Poly, b: Poly): Poly {
  const out = new Map(a);
  for (const [k, m] of b) out.set(k, m);
  return out;
}

export function multiply(a: Poly, b: Poly): Poly {
  const out: Poly = new Map();
  for (const x of a.values())
    for (const y of b.values()) {
      const m = [...x, ...y].sort();
      out.set(key(m), m);
    }
  return out;
}

/** Divides: every name of `small` occurs in `big` at least as often. */
function divides(small: Monomial, big: Monomial): boolean {
  const rest = [...big];
  for (const n of small) {
    const i = rest.indexOf(n);
    if (i < 0) return false;
    rest.splice(i, 1);
  }
  return true;
}

/**
 * Simplifies: drops the constant term and every term that divides another (it is dominated:
 * `n + n*m` → `n*m`), orders by degree then names. Null when nothing depends on a parameter.
 */
export function formatPoly(p: Poly, order: string[]): string | null {
  const terms = [...p.values()].filter((m) => m.length > 0);
  const kept = terms.filter((m, i) => !terms.some((o, j) => j !== i && o.length > m.length && divides(m, o)));
  if (kept.length === 0) return null;
  const rank = (n: string) => {
    const i = order.indexOf(n);
    return i < 0 ? order.length : i;
  };
  const sorted = kept.map((m) => [...m].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)));
  sorted.sort((a, b) => b.length - a.length || a.join('*').localeCompare(b.join('*')));
  return sorted.map((m) => m.join('*')).join(' + ');
}
