// Models as text: `2.02 + 0.5 * p^(1/2) * log2(n)`.
import { evalShape, formatExponent } from './exponents.js';
import type { Factor, Term } from './types.js';

export function formatCoefficient(value: number): string {
  if (value === 0) return '0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-3) {
    return value
      .toExponential(3)
      .replace(/\.?0+e/, 'e')
      .replace('e+', 'e');
  }
  if (magnitude >= 1000) return String(Math.round(value));
  const text = value.toPrecision(4);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

export function formatFactor(factor: Factor): string {
  const parts: string[] = [];
  if (factor.exponent !== 0) {
    const exponent = formatExponent(factor.exponent);
    parts.push(
      exponent === '1'
        ? factor.param
        : /^\d+$/.test(exponent)
          ? `${factor.param}^${exponent}`
          : `${factor.param}^(${exponent})`,
    );
  }
  if (factor.log > 0) parts.push(factor.log === 1 ? `log2(${factor.param})` : `log2(${factor.param})^${factor.log}`);
  return parts.join(' * ');
}

/** The model as one line of text; the constant first, then terms in their given order. */
export function formatModel(terms: readonly Term[]): string {
  let text = '';
  for (const term of terms) {
    const body = term.factors.map(formatFactor).join(' * ');
    const magnitude =
      term.fraction !== undefined ? term.fraction.replace(/^-/, '') : formatCoefficient(Math.abs(term.coefficient));
    const piece = body === '' ? magnitude : magnitude === '1' ? body : `${magnitude} * ${body}`;
    if (text === '') text = term.coefficient < 0 ? `-${piece}` : piece;
    else text += term.coefficient < 0 ? ` - ${piece}` : ` + ${piece}`;
  }
  return text === '' ? '0' : text;
}

/** Evaluates a model at named coordinates (missing parameters count as absent factors: 1). */
export function evaluateModel(terms: readonly Term[], at: Readonly<Record<string, number>>): number {
  let sum = 0;
  for (const term of terms) {
    let value = term.coefficient;
    for (const factor of term.factors) {
      const x = at[factor.param];
      if (x === undefined) continue;
      value *= evalShape(x, factor.exponent, factor.log);
    }
    sum += value;
  }
  return sum;
}
