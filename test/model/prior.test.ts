// The taint prior: dependency expressions, allowed term sets from loop nests, and what the
// modeler does with them (restriction, contention, too-narrow, interaction, unknown functions).
import { describe, expect, test } from 'vitest';
import { parseDependency, priorFor, functionOf } from '../../src/model/prior.js';
import { parseTaintReport } from '../../src/io/taint.js';
import { DEFAULT_GROWTH, modelExperiment, type CallpathModel } from '../../src/model/modeler.js';
import type { Series } from '../../src/model/types.js';
import { grid2, log2 } from './helpers.js';

const masksOf = (sets: string[][], params = ['p', 'n']) =>
  sets.map((set) => set.reduce((mask, name) => mask | (1 << params.indexOf(name)), 0)).sort((a, b) => a - b);

function taint(functions: unknown[], loops: unknown[] = []) {
  return parseTaintReport(
    { schema: 'taintlens/taint@1', parameters: ['p', 'n'], loops, functions, warnings: [] },
    'taint.json',
  );
}

function model(series: Series[], report = taint([])): Map<string, CallpathModel> {
  const result = modelExperiment(
    { source: 'm', params: ['p', 'n'], series },
    { aggregate: 'median', growth: DEFAULT_GROWTH, taint: report },
  );
  return new Map(result.models.map((m) => [m.callpath.split('->').pop()!, m]));
}

describe('dependency expressions', () => {
  test.each([
    ['n*p + n', [['n', 'p'], ['n']]],
    [
      'a*(b + c)',
      [
        ['a', 'b'],
        ['a', 'c'],
      ],
    ],
    ['n^2*p', [['n', 'p']]],
    ['2*n', [['n']]],
    ['n * n', [['n']]],
    [
      '(a + b) * (c + d)',
      [
        ['a', 'c'],
        ['a', 'd'],
        ['b', 'c'],
        ['b', 'd'],
      ],
    ],
  ])('%s', (text, monomials) => {
    expect(parseDependency(text)).toEqual(monomials);
  });

  test('parameter names with operator characters match when known', () => {
    expect(parseDependency('n-particles*steps', ['n-particles', 'steps'])).toEqual([['n-particles', 'steps']]);
  });

  test.each(['n*', '(n + p', 'n % p', 'n ^ p'])('rejects %s', (text) => {
    expect(() => parseDependency(text)).toThrow(/in dependency/);
  });

  test('call paths map to their last function', () => {
    expect(functionOf('main->solve->kernel')).toBe('kernel');
    expect(functionOf('solve')).toBe('solve');
  });
});

describe('allowed term sets', () => {
  test('expression only: every sub-monomial of each monomial, never across monomials', () => {
    const report = taint([
      { name: 'f', params: ['n', 'p'], dependency: 'p*n', pruned: null },
      { name: 'g', params: ['n', 'p'], dependency: 'p + n', pruned: null },
    ]);
    expect(priorFor(report, 'main->f', ['p', 'n']).allowed).toEqual(masksOf([['p'], ['n'], ['p', 'n']]));
    expect(priorFor(report, 'main->g', ['p', 'n']).allowed).toEqual(masksOf([['p'], ['n']]));
  });

  test('loop nests: the levels of the nest (outer, outer·inner), not the inner loop alone', () => {
    const report = taint(
      [{ name: 'f', params: ['n', 'p'], dependency: 'p*n', pruned: null }],
      [
        { id: 'L0', function: 'f', parent: null, params: ['p'], iterations: 64 },
        { id: 'L1', function: 'f', parent: 'L0', params: ['n'], iterations: 4096 },
      ],
    );
    const prior = priorFor(report, 'main->f', ['p', 'n']);
    expect(prior.fromLoops).toBe(true);
    expect(prior.allowed).toEqual(masksOf([['p'], ['p', 'n']]));
  });

  test('a monomial the loops do not explain (work in a callee) falls back to its subsets', () => {
    const report = taint(
      [{ name: 'f', params: ['n', 'p'], dependency: 'p*n', pruned: null }],
      [{ id: 'L0', function: 'f', parent: null, params: ['p'], iterations: 64 }],
    );
    expect(priorFor(report, 'main->f', ['p', 'n']).allowed).toEqual(masksOf([['p'], ['n'], ['p', 'n']]));
  });

  test('pruned or null dependency: constant; unmeasured parameters drop out; unknown functions are unrestricted', () => {
    const report = taint([
      { name: 'c', params: [], dependency: null, pruned: 'static' },
      { name: 'd', params: ['n'], dependency: 'n', pruned: 'dynamic' },
      { name: 'u', params: ['size'], dependency: 'size*p', pruned: null },
    ]);
    expect(priorFor(report, 'c', ['p', 'n'])).toMatchObject({ status: 'constant', allowed: [] });
    expect(priorFor(report, 'd', ['p', 'n'])).toMatchObject({ status: 'constant', allowed: [] });
    expect(priorFor(report, 'u', ['p', 'n'])).toMatchObject({
      status: 'restricted',
      params: ['p'],
      allowed: masksOf([['p']]),
    });
    expect(priorFor(report, 'main->nowhere', ['p', 'n']).status).toBe('missing');
  });
});

describe('the modeler under the prior', () => {
  test('restricts each call path to the parameters of its function', () => {
    // Noise that happens to favour a weak p-dependence cannot enter a model of an n-only function.
    const series = grid2('main->f', (_p, n) => 3 + 0.5 * n, { noise: 0.1, seed: 11 });
    const models = model([series], taint([{ name: 'f', params: ['n'], dependency: 'n', pruned: null }]));
    expect(models.get('f')!.dependsOn).toEqual(['n']);
  });

  test('a function with a null dependency is modeled as a constant', () => {
    const series = grid2('main->c', () => 7, { noise: 0.05 });
    const models = model([series], taint([{ name: 'c', params: [], dependency: null, pruned: 'static' }]));
    expect(models.get('c')!.terms).toHaveLength(1);
    expect(models.get('c')!.flags).toEqual([]);
  });

  test('additive loops keep products out of the hypotheses', () => {
    // Weakly multiplicative data that an additive model explains within the noise stays additive.
    const series = grid2('main->g', (p, n) => 10 + 2 * p + 0.5 * n + 0.0004 * p * n, { noise: 0.05, seed: 2 });
    const models = model([series], taint([{ name: 'g', params: ['n', 'p'], dependency: 'p + n', pruned: null }]));
    const g = models.get('g')!;
    expect(g.terms.every((t) => t.factors.length <= 1)).toBe(true);
    expect(g.flags).toEqual([]);
  });

  test('measurements that clearly combine what the loops keep apart are flagged as interaction', () => {
    const series = grid2('main->g', (p, n) => 10 + 0.01 * p * n * log2(n), { noise: 0.01 });
    const models = model([series], taint([{ name: 'g', params: ['n', 'p'], dependency: 'p + n', pruned: null }]));
    const g = models.get('g')!;
    expect(g.flags).toContain('interaction');
    expect(g.model).toMatch(/p \* n \* log2\(n\)/);
    expect(g.alternative!.basis).toBe('taint prior');
    expect(g.alternative!.terms.every((t) => t.factors.length <= 1)).toBe(true);
  });

  test('contention: the measurements grow with a parameter the code cannot depend on (§C1)', () => {
    const series = grid2('main->f', (p, n) => 10 + 0.5 * n + 0.2 * p * p, { noise: 0.01 });
    const models = model([series], taint([{ name: 'f', params: ['n'], dependency: 'n', pruned: null }]));
    const f = models.get('f')!;
    expect(f.flags).toContain('contention:p');
    // The model follows the measurements (for prediction and ranking); the prior's is kept.
    expect(f.dependsOn).toEqual(['p', 'n']);
    expect(f.model).toMatch(/p\^2/);
    expect(f.alternative).toMatchObject({ basis: 'taint prior' });
    expect(f.alternative!.terms.flatMap((t) => t.factors.map((x) => x.param))).toEqual(['n']);
  });

  test('too narrow: the code depends on p but the measurements do not show it (§C2)', () => {
    const series = grid2('main->f', (_p, n) => 10 + 0.5 * n, { noise: 0.01 });
    const models = model([series], taint([{ name: 'f', params: ['n', 'p'], dependency: 'p*n', pruned: null }]));
    expect(models.get('f')!.flags).toEqual(['too-narrow:p']);
  });

  test("too narrow only for the function's own loops: callees' work shows in their own call paths", () => {
    // main: for p { solve() }, solve: for n {...}. Exclusive costs: main ~ p, solve ~ n per call.
    const report = taint(
      [
        { name: 'main', params: ['n', 'p'], dependency: 'p*n', pruned: null },
        { name: 'solve', params: ['n'], dependency: 'n', pruned: null },
      ],
      [
        { id: 'L0', function: 'main', parent: null, params: ['p'], iterations: 64 },
        { id: 'L1', function: 'solve', parent: null, params: ['n'], iterations: 4096 },
      ],
    );
    const models = model(
      [grid2('main', (p) => 5 + 2 * p, { noise: 0.01 }), grid2('main->solve', (p, n) => 1 + p * n, { noise: 0.01 })],
      report,
    );
    expect(models.get('main')!.flags).toEqual([]);
    expect(models.get('solve')!.dependsOn).toEqual(['p', 'n']);
    expect(priorFor(report, 'main', ['p', 'n'])).toMatchObject({ params: ['p', 'n'], ownParams: ['p'] });
    // A report without loops cannot tell own work from callees': every parameter counts.
    const flat = taint([{ name: 'main', params: ['n', 'p'], dependency: 'p*n', pruned: null }]);
    expect(priorFor(flat, 'main', ['p', 'n']).ownParams).toEqual(['p', 'n']);
  });

  test("branch: growth with a parameter that reaches only the function's branches (algorithm selection)", () => {
    const series = grid2('main->alloc', (_p, n) => 40 + 0.01 * n * n, { noise: 0.01 });
    const report = parseTaintReport(
      {
        schema: 'taintlens/taint@1',
        parameters: ['p', 'n'],
        loops: [],
        functions: [{ name: 'alloc', params: [], dependency: null, pruned: 'static' }],
        branches: [{ id: 'B0', function: 'alloc', loop: null, kind: 'if', params: ['n'], executed: true }],
      },
      'taint.json',
    );
    expect(priorFor(report, 'main->alloc', ['p', 'n'])).toMatchObject({ status: 'constant', branchParams: ['n'] });
    const alloc = model([series], report).get('alloc')!;
    expect(alloc.flags).toContain('branch:n');
    expect(alloc.flags.some((flag) => flag.startsWith('contention'))).toBe(false);
    expect(alloc.dependsOn).toEqual(['n']);
  });

  test('no contention or too-narrow flag when measurements and code agree', () => {
    const series = grid2('main->f', (p, n) => 2 + 0.05 * p * n + 0.3 * p, { noise: 0.05, seed: 4 });
    const report = taint(
      [{ name: 'f', params: ['n', 'p'], dependency: 'p*n', pruned: null }],
      [
        { id: 'L0', function: 'f', parent: null, params: ['p'], iterations: 64 },
        { id: 'L1', function: 'f', parent: 'L0', params: ['n'], iterations: 4096 },
      ],
    );
    const f = model([series], report).get('f')!;
    expect(f.flags).toEqual([]);
    expect(f.model).toMatch(/^\d+(\.\d+)? \+ 0\.0\d+ \* p \* n \+ 0\.\d+ \* p$/);
  });

  test('a function missing from the report is modeled without restriction and says so', () => {
    const series = [
      grid2('main->other', (p) => 1 + p, { noise: 0.01 }),
      grid2('main->solve', (_p, n) => 1 + n, { noise: 0.01 }),
    ];
    const models = model(series, taint([{ name: 'solve', params: ['n'], dependency: 'n', pruned: null }]));
    expect(models.get('other')!.flags).toContain('taint-missing');
    expect(models.get('other')!.dependsOn).toEqual(['p']);
    expect(models.get('solve')!.flags).not.toContain('taint-missing');
  });
});
