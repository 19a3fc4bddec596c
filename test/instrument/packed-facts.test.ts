// Packed flow facts (instrument/packed-facts.ts): what the site table holds after packing reads and
// serializes exactly as the facts did before, for every target kind, address shape and number range.
import { expect, test } from 'vitest';
import type { AddressAst, FunctionFacts } from '../../instrument/flow-facts.js';
import { FactPacker, packFunctionFacts } from '../../instrument/packed-facts.js';

const shared: AddressAst = { op: 'add', a: { l: 3 }, b: 4294967280 };
const chain: AddressAst = { ld: { ld: { op: 'shl', a: { l: 1 }, b: 2 }, off: -16 }, off: 3_000_000_000 };

function sampleFacts(): FunctionFacts {
  return {
    index: 7,
    params: 2,
    localNames: ['x', '', 'p'],
    facts: [
      { region: 0, target: { kind: 'local', local: 2 }, sources: ['l0', 'c1', 'g0'] },
      { region: 0, target: { kind: 'store', ptr: shared, offset: -5, bytes: 4, base: 3 }, sources: ['l2'] },
      {
        region: 1,
        target: { kind: 'store', ptr: { op: 'xor', a: shared, b: shared }, offset: 8, bytes: 1, base: null },
        sources: [],
      },
      { region: 1, target: { kind: 'store', ptr: null, offset: 2 ** 33, bytes: 8 }, sources: ['l01', 'x'] },
      { region: 2, target: { kind: 'store', ptr: chain, offset: 0, bytes: 2, base: null }, sources: ['l1'] },
      { region: 2, target: { kind: 'global', name: '__stack_pointer' }, sources: ['l268435456'] },
      { region: 3, target: { kind: 'return' }, sources: ['c0'] },
      { region: 3, target: { kind: 'arg', call: 4, arg: 1 }, sources: ['l1', 'l1'] },
      { region: 4, target: { kind: 'cond' }, sources: ['l0'] },
      { region: 4, target: { kind: 'store', ptr: 12.5, offset: 0, bytes: 4, base: null }, sources: [] },
    ],
    regions: [
      { id: 10, loop: -1, instructions: 3 },
      { id: 11, loop: 0, instructions: 2 ** 31 },
      { id: 12, loop: 1, instructions: 0 },
    ],
    loopParents: [-1, 0],
    callees: [null, 3],
    grows: [0],
    stackLocals: [1],
  };
}

const recorded = [
  [{ ptr: shared, offset: -5 }],
  [],
  [
    { ptr: chain, offset: 0 },
    { ptr: 7, offset: 1 },
  ],
];

test('packed facts read and serialize as the facts they were packed from', () => {
  const facts = sampleFacts();
  const packed = packFunctionFacts(facts, recorded);
  expect(JSON.stringify(packed, null, 2)).toBe(JSON.stringify(facts, null, 2));
  expect(packed.facts).toEqual(facts.facts);
  expect(packed.regions).toEqual(facts.regions);
  recorded.forEach((list, k) => expect(packed.recorded(k)).toEqual(list));
  // A subtree shared before is shared after: its text is not repeated in memory.
  const xor = packed.facts[2]!.target;
  expect(
    xor.kind === 'store' &&
      typeof xor.ptr === 'object' &&
      xor.ptr !== null &&
      'a' in xor.ptr &&
      xor.ptr.a === xor.ptr.b,
  ).toBe(true);
});

test('the packer packs each function when the next starts, its regions with it', () => {
  const functions: FunctionFacts[] = [];
  const regions: Array<{ function: number; index: number; recorded: Array<{ ptr: AddressAst; offset: number }> }> = [];
  const packer = new FactPacker(functions, regions);
  const before = sampleFacts();
  packer.start(sampleFacts());
  recorded.forEach((list, index) => regions.push({ function: 7, index, recorded: list }));
  packer.start({ ...sampleFacts(), index: 8, facts: [], regions: [] });
  packer.finish();
  expect(JSON.stringify(functions)).toBe(
    JSON.stringify([before, { ...sampleFacts(), index: 8, facts: [], regions: [] }]),
  );
  expect(JSON.stringify(regions)).toBe(
    JSON.stringify(recorded.map((list, index) => ({ function: 7, index, recorded: list }))),
  );
  expect(regions[2]!.recorded).toEqual(recorded[2]);
});
