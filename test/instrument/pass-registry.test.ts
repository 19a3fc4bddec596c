// The pass contract: compositions (`--mode a,b`) are ordered from the passes' descriptors (runs
// after, must be last, what they require and provide) and impossible ones are refused with one
// message; the shipped passes keep the order and behaviour `--mode` always had (taint last).
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { PassRegistry, passRegistry } from '../../instrument/pass-registry.js';
import { instrumentModule, parseModes } from '../../instrument/pipeline.js';
import type { PassDescriptor, PassOrder, PassInput, PassProduct } from '../../instrument/pass-contract.js';

interface Shape {
  order?: PassOrder;
  requires?: PassInput[];
  uses?: PassProduct[];
  provides?: PassProduct[];
  reserves?: string[];
}

function pass(name: string, shape: Shape = {}): PassDescriptor {
  return {
    name,
    describe: `pass ${name}`,
    requires: shape.requires ?? ['site-analysis'],
    provides: shape.provides ?? [],
    order: shape.order ?? {},
    reserves: shape.reserves ?? [name],
    siteRecord: 'nothing',
    ...(shape.uses ? { uses: shape.uses } : {}),
    regions: () => [],
    apply: () => null,
  };
}

const names = (passes: PassDescriptor[]) => passes.map((p) => p.name);

test('the shipped passes: listed in registration order, taint runs last, the given order otherwise', () => {
  expect(passRegistry.names()).toEqual(['loops', 'taint', 'measure', 'sample', 'entry-bitmap', 'entry-work']);
  expect(names(passRegistry.compose(['taint', 'loops']))).toEqual(['loops', 'taint']);
  expect(names(passRegistry.compose(['sample', 'taint', 'measure', 'loops']))).toEqual([
    'sample',
    'measure',
    'loops',
    'taint',
  ]);
  expect(names(passRegistry.compose(['measure', 'loops']))).toEqual(['measure', 'loops']);
  expect(names(passRegistry.compose([]))).toEqual([]);
  // parseModes keeps the modes as given (they name the output file and sites.json's `modes`).
  expect(parseModes(' taint, loops,taint ,')).toEqual(['taint', 'loops']);
  expect(() => parseModes('loops,nope')).toThrow(
    "unknown mode 'nope' (available: loops, taint, measure, sample, entry-bitmap, entry-work)",
  );
  expect(() => parseModes(' , ')).toThrow('no instrumentation mode given');
});

test('every shipped pass asks only for the regions its descriptor reserves, and no two reserve the same', () => {
  const options = [
    {},
    {
      contextBytes: 1 << 20,
      taint: { granularity: 'byte' as const, sinkBytes: 1 << 16 },
      sample: { maxSamples: 10 },
      measure: { trace: 4 },
    },
  ];
  const owners = new Map<string, string>();
  for (const name of passRegistry.names()) {
    const descriptor = passRegistry.get(name)!;
    for (const option of options) {
      for (const region of descriptor.regions(option)) expect(descriptor.reserves).toContain(region.name);
    }
    for (const region of descriptor.reserves) {
      expect(owners.get(region)).toBeUndefined();
      owners.set(region, name);
    }
  }
});

test('the pipeline applies the passes in the registry order and keeps the modes as given', () => {
  const bytes = new Uint8Array(readFileSync('build/kernels/matmul.wasm'));
  const { sites } = instrumentModule(bytes, 'matmul.wasm', ['taint', 'loops']);
  expect(sites.modes).toEqual(['taint', 'loops']);
  expect(Object.keys(sites.passes)).toEqual(['loops', 'taint']);
  expect(Object.keys(sites.layout!.regions)).toEqual(['loops', 'taint', 'taint-contexts', 'shadow']);
});

test('runs-after and requirements order a composition; the given order breaks ties', () => {
  const registry = new PassRegistry([
    pass('a'),
    pass('b', { order: { after: ['a'] } }),
    pass('c'),
    pass('counter', { provides: ['instrumentation-locals'] }),
    pass('reader', { requires: ['site-analysis', 'instrumentation-locals'] }),
    pass('user', { uses: ['instrumentation-locals'] }),
  ]);
  expect(names(registry.compose(['b', 'c', 'a']))).toEqual(['c', 'a', 'b']);
  expect(names(registry.compose(['b', 'c']))).toEqual(['b', 'c']);
  expect(names(registry.compose(['reader', 'counter']))).toEqual(['counter', 'reader']);
  expect(names(registry.compose(['user', 'counter']))).toEqual(['counter', 'user']);
  expect(names(registry.compose(['user']))).toEqual(['user']);
});

test('impossible compositions are refused with one message saying why', () => {
  const registry = new PassRegistry([
    pass('flat', { order: { last: 'it flattens code' } }),
    pass('wide', { order: { last: 'it rewrites every call' } }),
    pass('p', { order: { after: ['q'] } }),
    pass('q', { order: { after: ['p'] } }),
    pass('after-flat', { order: { after: ['flat'] } }),
    pass('reader', { requires: ['site-analysis', 'instrumentation-locals'] }),
    pass('counter', { provides: ['instrumentation-locals'] }),
    pass('one', { reserves: ['tree'] }),
    pass('two', { reserves: ['log', 'tree'] }),
  ]);
  expect(() => registry.compose(['flat', 'wide'])).toThrow(
    'modes flat,wide cannot be composed: flat must run last (it flattens code); wide must run last (it rewrites every call)',
  );
  expect(() => registry.compose(['p', 'q'])).toThrow(
    'modes p,q cannot be composed: no order satisfies p runs after q; q runs after p',
  );
  expect(() => registry.compose(['after-flat', 'flat'])).toThrow(
    'modes after-flat,flat cannot be composed: no order satisfies after-flat runs after flat; flat must run last',
  );
  expect(() => registry.compose(['reader'])).toThrow(
    'modes reader cannot be composed: reader requires instrumentation-locals, which no mode before it provides (counter does)',
  );
  expect(() => registry.compose(['one', 'two'])).toThrow(
    "modes one,two cannot be composed: one and two both reserve the memory region 'tree'",
  );
  expect(() => registry.parse('flat,wide')).toThrow('flat must run last');
  expect(() => new PassRegistry([pass('a'), pass('a')])).toThrow("internal: two instrumentation passes are named 'a'");
});
