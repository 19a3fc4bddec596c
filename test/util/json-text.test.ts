// JSON text in pieces (src/util/json-text.ts): the same bytes as JSON.stringify, indented or compact,
// for values that exercise every rule it re-implements at the outer levels (toJSON with its key,
// left-out values, empty containers, long arrays opened below the first levels).
import { expect, test } from 'vitest';
import { jsonPieces } from '../../src/util/json-text.js';

class Packed {
  constructor(private readonly n: number) {}
  toJSON(key: string) {
    return { key, n: this.n, list: [this.n, 'a\nb', null] };
  }
}

const value = {
  schema: 'taintlens/x@1',
  empty: { list: [], object: {} },
  skipped: undefined,
  fn: () => 1,
  holes: [undefined, () => 2, Symbol('s'), 1],
  date: new Date(0),
  boxed: [new Number(3), new String('s'), new Boolean(false)],
  deep: { a: { b: { c: { d: [1, { e: 'f' }], g: new Packed(1) } } } },
  long: { inner: { list: Array.from({ length: 700 }, (_, i) => (i % 3 === 0 ? new Packed(i) : { i, s: `x"${i}` })) } },
  text: 'quote " backslash \\ newline \n unicode \u2028 é',
  numbers: [0, -0, 1.5, -7, 1e300, NaN, Infinity],
};

test('pieces join to JSON.stringify, indented and compact', () => {
  for (const indent of [0, 2, 4]) {
    const expected = JSON.stringify(value, null, indent);
    expect([...jsonPieces(value, indent)].join('')).toBe(expected);
  }
  expect([...jsonPieces([], 2)].join('')).toBe('[]');
  expect([...jsonPieces(new Packed(2), 2)].join('')).toBe(JSON.stringify(new Packed(2), null, 2));
});

test('a long text comes in pieces', () => {
  expect([...jsonPieces(value.long, 2)].length).toBeGreaterThan(2);
});

test('a run of array items too long for one string is opened, with the same text', () => {
  // Each big item's text is about 2^27 characters: together they pass V8's string limit (2^29 - 24).
  const big = 'x'.repeat(1 << 27);
  const value = { list: [{ a: big }, { b: [big] }, { c: big }, [big, 1], { d: big }, 2] };
  const pieces = [...jsonPieces(value, 2)];
  expect(pieces.every((piece) => piece.length < 2 * big.length)).toBe(true);
  // The same text as JSON.stringify of the same shape with a short string in place of the big one.
  const small = JSON.parse(JSON.stringify(value, (_key, v: unknown) => (v === big ? 'y' : v))) as unknown;
  expect(pieces.map((piece) => piece.split(big).join('y')).join('')).toBe(JSON.stringify(small, null, 2));
});
