// The communicator's reductions and message rules, driven from one thread: a message that fits a
// slot is buffered, so rank 1 can send before rank 0 receives without either blocking.
import { describe, expect, test } from 'vitest';
import { Communicator, CommunicationError, DATATYPES, OPERATORS } from '../../src/runtime/spmd/communicator.js';
import { createShared } from '../../src/runtime/spmd/shared-state.js';

function pair() {
  const layout = createShared(2);
  return [new Communicator(layout, 0), new Communicator(layout, 1)] as const;
}

const arrays = {
  i32: (v: number[]) => new Uint8Array(Int32Array.from(v).buffer),
  i64: (v: number[]) => new Uint8Array(BigInt64Array.from(v.map(BigInt)).buffer),
  f32: (v: number[]) => new Uint8Array(Float32Array.from(v).buffer),
  f64: (v: number[]) => new Uint8Array(Float64Array.from(v).buffer),
};
const read = {
  i32: (b: Uint8Array) => [...new Int32Array(b.buffer)],
  i64: (b: Uint8Array) => [...new BigInt64Array(b.buffer)].map(Number),
  f32: (b: Uint8Array) => [...new Float32Array(b.buffer)],
  f64: (b: Uint8Array) => [...new Float64Array(b.buffer)],
};
const expected: Record<(typeof OPERATORS)[number], (a: number, b: number) => number> = {
  sum: (a, b) => a + b,
  max: Math.max,
  min: Math.min,
  prod: (a, b) => a * b,
};

describe('communicator', () => {
  test.each(DATATYPES.flatMap((type, t) => OPERATORS.map((op, o) => [type, op, t, o] as const)))(
    'reduce %s %s combines element-wise at the root',
    (type, op, t, o) => {
      const [zero, one] = pair();
      const a = [3, -2, 7.5, 0];
      const b = [4, 5, -1.5, 9];
      const vals = (v: number[]) => (type === 'i32' || type === 'i64' ? v.map(Math.trunc) : v);
      const out = new Uint8Array(4 * (type === 'i64' || type === 'f64' ? 8 : 4));
      one.reduce(arrays[type](vals(b)), null, 4, t, o, 0);
      zero.reduce(arrays[type](vals(a)), out, 4, t, o, 0);
      expect(read[type](out)).toEqual(vals(a).map((x, i) => expected[op](x, vals(b)[i]!)));
    },
  );

  test("i32 sums wrap as two's complement (the same in any order)", () => {
    const [zero, one] = pair();
    const out = new Uint8Array(4);
    one.reduce(arrays.i32([2 ** 31 - 1]), null, 1, 0, 0, 0);
    zero.reduce(arrays.i32([1]), out, 1, 0, 0, 0);
    expect(read.i32(out)).toEqual([-(2 ** 31)]);
  });

  test('one message per pair is buffered; tags must match; a message longer than the buffer is an error', () => {
    const [zero, one] = pair();
    one.send(new Uint8Array([1, 2]), 0, 5);
    const into = new Uint8Array(3);
    expect(zero.recv(into, 1, 5)).toBe(2);
    expect([...into.subarray(0, 2)]).toEqual([1, 2]);
    one.send(new Uint8Array([3, 4, 5]), 0, 6);
    expect(() => zero.recv(new Uint8Array(3), 1, 7)).toThrow(
      /rank 0 expected a message with tag 7 from rank 1, the next one has tag 6/,
    );
    one.send(new Uint8Array([3, 4, 5]), 0, 6);
    expect(() => zero.recv(new Uint8Array(2), 1, 6)).toThrow(CommunicationError);
    expect(() => zero.send(new Uint8Array(1), 2, 0)).toThrow(/rank 0: send names rank 2, but ranks are 0\.\.1/);
  });
});
