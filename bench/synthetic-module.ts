// A large WebAssembly module for the scale benchmark, written byte by byte (fast, no toolchain):
// functions of (i32) -> i32, each a counted loop over a long straight-line body with a call to an
// earlier function every so often, so it has loops, call sites and many locals' worth of values.
import { uleb } from '../src/util/leb128.js';

function sleb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && !(byte & 0x40)) || (value === -1 && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vector = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const name = (text: string) => [...uleb(text.length), ...Buffer.from(text)];

/** One function's body: locals $j (1) and $acc (2); parameter 0 is the trip count. */
function functionBody(index: number, statements: number): number[] {
  const code: number[] = [0x02, 0x40, 0x03, 0x40];
  code.push(0x20, 1, 0x20, 0, 0x4f, 0x0d, 1); // br_if 1 (j >= n)
  for (let s = 0; s < statements; s++) {
    // acc = rotl(acc * k ^ j, r)
    code.push(
      0x20,
      2,
      0x41,
      ...sleb(((index * 131 + s * 7) % 1000) + 3),
      0x6c,
      0x20,
      1,
      0x73,
      0x41,
      ...sleb((s % 31) + 1),
      0x77,
      0x21,
      2,
    );
  }
  if (index % 16 !== 0) {
    // acc += f(index - 1)(j & 1)
    code.push(0x20, 2, 0x20, 1, 0x41, 1, 0x71, 0x10, ...uleb(index - 1), 0x6a, 0x21, 2);
  }
  code.push(0x20, 1, 0x41, 1, 0x6a, 0x21, 1, 0x0c, 0); // j++; br 0
  code.push(0x0b, 0x0b, 0x20, 2, 0x0b); // end loop, end block, acc, end
  const body = [...vector([[2, 0x7f]]), ...code];
  return [...uleb(body.length), ...body];
}

/** A module of about `targetBytes` of code. */
export function syntheticModule(targetBytes: number, statementsPerFunction = 100): Uint8Array {
  const perFunction = functionBody(1, statementsPerFunction).length;
  const count = Math.max(1, Math.round(targetBytes / perFunction));
  const bodies: number[][] = [];
  for (let i = 0; i < count; i++) bodies.push(functionBody(i, statementsPerFunction));
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vector([[0x60, 1, 0x7f, 1, 0x7f]])),
    ...section(3, vector(bodies.map(() => [0]))),
    ...section(5, vector([[0x00, 1]])),
    ...section(
      7,
      vector([
        [...name('run'), 0x00, ...uleb(count - 1)],
        [...name('memory'), 0x02, 0],
      ]),
    ),
  ];
  const code = vector(bodies);
  return new Uint8Array([...bytes, 10, ...uleb(code.length), ...code]);
}
