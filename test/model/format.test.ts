// Models as text and as JSON documents; JSON error positions.
import { describe, expect, test } from 'vitest';
import { evaluateModel, formatCoefficient, formatModel } from '../../src/model/format.js';
import { formatExponent, FULL_SHAPES, EXTRAP_SHAPES } from '../../src/model/exponents.js';
import { jsonErrorOffset, jsonSyntaxError } from '../../src/io/json.js';
import { entryTerms, modelsDocument, parseModelsDocument } from '../../src/io/models.js';
import { DEFAULT_GROWTH, modelExperiment } from '../../src/model/modeler.js';
import { grid2 } from './helpers.js';

const f = (param: string, exponent: number, log = 0) => ({ param, exponent, log });

describe('model text', () => {
  test('the issue example', () => {
    expect(
      formatModel([
        { coefficient: 2.02, factors: [] },
        { coefficient: 0.5, factors: [f('p', 0.5), f('n', 0, 1)] },
      ]),
    ).toBe('2.02 + 0.5 * p^(1/2) * log2(n)');
  });

  test('signs, powers, logs, refined exponents and magnitudes', () => {
    expect(
      formatModel([
        { coefficient: -3, factors: [] },
        { coefficient: 1, factors: [f('n', 2)] },
        { coefficient: -0.25, factors: [f('p', 1, 2)] },
        { coefficient: 1.5e-7, factors: [f('x', 0.899)] },
      ]),
    ).toBe('-3 + n^2 - 0.25 * p * log2(p)^2 + 1.5e-7 * x^(0.899)');
    expect(formatCoefficient(16780.3)).toBe('16780');
    expect(formatCoefficient(2.5e9)).toBe('2.5e9');
    expect(formatCoefficient(0.001004)).toBe('0.001004');
    expect(formatExponent(4 / 3)).toBe('4/3');
    expect(formatExponent(3)).toBe('3');
  });

  test('evaluation', () => {
    const terms = [
      { coefficient: 2, factors: [] },
      { coefficient: 0.5, factors: [f('p', 0.5), f('n', 0, 1)] },
    ];
    expect(evaluateModel(terms, { p: 16, n: 8 })).toBe(2 + 0.5 * 4 * 3);
  });

  test("the exponent grid: 59 shapes, including Extra-P's 42", () => {
    expect(FULL_SHAPES).toHaveLength(59);
    expect(EXTRAP_SHAPES).toHaveLength(42);
    for (const shape of EXTRAP_SHAPES) expect(FULL_SHAPES).toContainEqual(shape);
  });
});

describe('models document', () => {
  test('round trip', () => {
    const report = modelExperiment(
      { source: 'm', params: ['p', 'n'], series: [grid2('main->k', (p, n) => 1 + 0.1 * p * n)] },
      { aggregate: 'median', growth: DEFAULT_GROWTH, target: { p: 128, n: 512 } },
    );
    const document = JSON.parse(JSON.stringify(modelsDocument(report, 'm.jsonl')));
    const parsed = parseModelsDocument(document, 'models.json');
    expect(parsed.schema).toBe('taintlens/models@1');
    const entry = parsed.models[0]!;
    expect(evaluateModel(entryTerms(entry), parsed.target)).toBeCloseTo(entry.prediction!, 6);
    expect(() => parseModelsDocument({ schema: 'taintlens/loops@1', models: [] }, 'x.json')).toThrow(
      /x\.json: not a models document/,
    );
    expect(() => parseModelsDocument({ schema: 'taintlens/models@1', models: [{ callpath: 'k' }] }, 'x.json')).toThrow(
      /x\.json: models\[0\]/,
    );
  });
});

describe('JSON error positions', () => {
  test.each([
    ['{"a": tru}', 9],
    ['{"a":1}x', 7],
    ['[1, 2', 5],
    ['{"a": [1, 2,, 3]}', 12],
    ['{"a": "x\\q"}', 9],
    ['{\n  "f": [\n    oops\n  ]\n}', 15],
  ])('%s', (text, offset) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(jsonErrorOffset(text)).toBe(offset);
  });

  test('the line of the error', () => {
    expect(jsonSyntaxError('{\n  "f": [\n    oops\n  ]\n}')).toBe('line 3: not valid JSON (unexpected "o")');
  });
});
