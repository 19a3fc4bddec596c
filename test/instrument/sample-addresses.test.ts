// The sampling pass's recorded store addresses as Wasm (passes/sample.ts): an address read through
// a chain of loads (`p->a->b->…->x = v`) evaluates each loaded address once. Evaluating it twice
// (bounds check, then load) doubled the code at every level: yosys has such chains, and its
// instrumentation took Binaryen past its 4 GiB heap (docs/real-programs.md).
import { expect, test } from 'vitest';
import binaryen from 'binaryen';
import { instrumentModule } from '../../instrument/pipeline.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';
import type { AddressAst } from '../../instrument/flow-facts.js';

/** `run(p, n)`: n times, store n through a chain of `depth` loads from p. */
function pointerChase(depth: number): Uint8Array {
  const m = new binaryen.Module();
  const i32 = binaryen.i32;
  m.setMemory(1, 1, 'memory');
  let address = m.local.get(0, i32);
  for (let k = 0; k < depth; k++) address = m.i32.load(4 * (k % 3), 4, address);
  const body = m.loop(
    'again',
    m.block(null, [
      m.i32.store(8, 4, address, m.local.get(1, i32)),
      m.local.set(1, m.i32.sub(m.local.get(1, i32), m.i32.const(1))),
      m.br('again', m.local.get(1, i32)),
    ]),
  );
  m.addFunction('run', binaryen.createType([i32, i32]), binaryen.none, [], body);
  m.addFunctionExport('run', 'run');
  const bytes = m.emitBinary();
  m.dispose();
  return bytes;
}

function loads(ast: AddressAst): number {
  if (ast === null || typeof ast === 'number' || 'l' in ast) return 0;
  if ('ld' in ast) return 1 + loads(ast.ld);
  return loads(ast.a) + loads(ast.b);
}

test('an address behind a chain of loads costs code linear in the chain', () => {
  const [short, long] = [8, 16].map((depth) => {
    const { bytes, sites } = instrumentModule(pointerChase(depth), `chase${depth}.wasm`, ['sample']);
    const layout = sites.passes.sample as SampleLayout;
    const recorded = layout.regions.flatMap((r) => r.recorded);
    expect(Math.max(...recorded.map((r) => loads(r.ptr)))).toBe(depth);
    return bytes.length;
  }) as [number, number];
  // 8 more loads add ~550 bytes: the chain itself and its one copy (evaluated twice: 2^8 times the copy).
  expect(long - short).toBeLessThan(8 * 100);
});
