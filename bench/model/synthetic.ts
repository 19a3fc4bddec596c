// Seeded synthetic PMNF functions and measurements for the benchmark and the tests: two
// parameters on a 5×5 grid, repetitions with uniform multiplicative noise, and the taint report a
// program with that cost structure would produce.
import { EXTRAP_SHAPES, evalShape, loopDepth, type Shape } from '../../src/model/exponents.js';
import type { Series, Term } from '../../src/model/types.js';

/** A small, fast, seedable PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Family = 'constant' | 'single' | 'additive' | 'multiplicative' | 'mixed' | 'full';

/**
 * The headline families, from constant to 3-term mixed; every one lies in Extra-P's hypothesis
 * space (for two parameters: f, g, f·g, f+g, f·g+f, f·g+g).
 */
export const FAMILIES: readonly Family[] = ['constant', 'single', 'additive', 'multiplicative', 'mixed'];

/** Beyond Extra-P's space: the 4-term c + f·g + f + g, reported separately. */
export const EXTRA_FAMILIES: readonly Family[] = ['full'];

export const FAMILY_TEXT: Record<Family, string> = {
  constant: 'c',
  single: 'c + f(x)',
  additive: 'c + f(p) + g(n)',
  multiplicative: 'c + f(p)·g(n)',
  mixed: 'c + f(p)·g(n) + f(p) | g(n)',
  full: 'c + f(p)·g(n) + f(p) + g(n)',
};

export interface SyntheticDesign {
  params: [string, string];
  values: [number[], number[]];
  repetitions: number;
  /**
   * log10 range of the function's scale relative to its constant: a function's terms reach
   * about constant · 10^U(termScale) at their largest point on the grid.
   */
  termScale: [number, number];
  /** log10 spread of the terms of one function around that scale (± this half-width). */
  termSpread: number;
  /** log10 range of an outer loop level's own work relative to the whole nest's. */
  outerScale: [number, number];
  /** The shapes the functions' factors are drawn from, uniformly (default: Extra-P's 42). */
  shapes?: readonly Shape[];
}

/**
 * Processes 4…64 and problem sizes 16…256, doubling; the parameter-dependent work reaches 10–1000×
 * the constant at the largest point, the terms of one level within half a decade of each other.
 */
export const DEFAULT_DESIGN: SyntheticDesign = {
  params: ['p', 'n'],
  values: [
    [4, 8, 16, 32, 64],
    [16, 32, 64, 128, 256],
  ],
  repetitions: 5,
  termScale: [1, 3],
  termSpread: 0.5,
  outerScale: [-1, 0],
};

/** Extra-P-style complexities common in code: log, √, linear, n·log n, n^1.5, n², n²·log n, n³. */
export const COMMON_SHAPES: readonly Shape[] = EXTRAP_SHAPES.filter((shape) =>
  [
    [0, 1],
    [0.5, 0],
    [1, 0],
    [1, 1],
    [1.5, 0],
    [2, 0],
    [2, 1],
    [3, 0],
  ].some(([exponent, log]) => Math.abs(shape.exponent - exponent!) < 1e-9 && shape.log === log),
);

/**
 * Designs tried to calibrate the benchmark against the Extra-P figures (see
 * docs/model.md, "Calibration"): the headline design and variations of the parameter values
 * (narrower, wider, more decades) and of the exponent distribution. All keep what the issue fixes:
 * two parameters, 5×5 points, 5 repetitions, uniform ±noise, the five families.
 */
export const NAMED_DESIGNS: Readonly<Record<string, SyntheticDesign>> = {
  default: DEFAULT_DESIGN,
  small: {
    ...DEFAULT_DESIGN,
    values: [
      [2, 4, 8, 16, 32],
      [2, 4, 8, 16, 32],
    ],
  },
  tiny: {
    ...DEFAULT_DESIGN,
    values: [
      [1, 2, 3, 4, 5],
      [1, 2, 3, 4, 5],
    ],
  },
  linear: {
    ...DEFAULT_DESIGN,
    values: [
      [10, 20, 30, 40, 50],
      [100, 200, 300, 400, 500],
    ],
  },
  wide: {
    ...DEFAULT_DESIGN,
    values: [
      [4, 16, 64, 256, 1024],
      [16, 64, 256, 1024, 4096],
    ],
  },
  large: {
    ...DEFAULT_DESIGN,
    values: [
      [64, 128, 256, 512, 1024],
      [1024, 2048, 4096, 8192, 16384],
    ],
  },
  decades: {
    ...DEFAULT_DESIGN,
    values: [
      [2, 8, 32, 128, 512],
      [10, 100, 1000, 10000, 100000],
    ],
  },
  'small-terms': { ...DEFAULT_DESIGN, termScale: [0, 1] },
  'large-terms': { ...DEFAULT_DESIGN, termScale: [2, 4] },
  'wide-common': {
    ...DEFAULT_DESIGN,
    values: [
      [4, 16, 64, 256, 1024],
      [16, 64, 256, 1024, 4096],
    ],
    shapes: COMMON_SHAPES,
  },
};

export interface SyntheticLoop {
  id: string;
  function: string;
  parent: string | null;
  params: string[];
  iterations: number | null;
}

export interface SyntheticFunction {
  name: string;
  family: Family;
  terms: Term[];
  /** The taint dependency expression of code with this cost structure (null: constant). */
  dependency: string | null;
  loops: SyntheticLoop[];
}

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function maxOver(values: readonly number[], shape: Shape): number {
  let max = 0;
  for (const x of values) max = Math.max(max, Math.abs(evalShape(x, shape.exponent, shape.log)));
  return max;
}

/** Draws one function of the family; shapes from Extra-P's building blocks (both modelers' spaces). */
export function syntheticFunction(
  random: () => number,
  family: Family,
  name: string,
  design = DEFAULT_DESIGN,
): SyntheticFunction {
  const [pName, nName] = design.params;
  const constant = Math.pow(10, random() * 2 - 0.5); // 0.3 … 30
  const shapeP = pick(random, design.shapes ?? EXTRAP_SHAPES);
  const shapeN = pick(random, design.shapes ?? EXTRAP_SHAPES);
  const maxP = maxOver(design.values[0], shapeP);
  const maxN = maxOver(design.values[1], shapeN);
  const level = constant * Math.pow(10, design.termScale[0] + random() * (design.termScale[1] - design.termScale[0]));
  const scale = () => level * Math.pow(10, design.termSpread * (2 * random() - 1));
  const factorP = { param: pName, exponent: shapeP.exponent, log: shapeP.log };
  const factorN = { param: nName, exponent: shapeN.exponent, log: shapeN.log };
  // Terms of one nesting level share the function's scale; the outer level of a nest does less work
  // than the whole nest (at the largest point, its body runs outer times, the nest's outer·inner).
  const outerScale = () =>
    level * Math.pow(10, design.outerScale[0] + random() * (design.outerScale[1] - design.outerScale[0]));
  const termP = (weight = scale): Term => ({ coefficient: weight() / maxP, factors: [factorP] });
  const termN = (weight = scale): Term => ({ coefficient: weight() / maxN, factors: [factorN] });
  const termPN = (): Term => ({ coefficient: scale() / (maxP * maxN), factors: [factorP, factorN] });
  // Each parameter's loops nest as deep as its shape needs (p^2·log2 p: three levels over p), so the
  // report's loop depth over it bounds the exponents as a taint analysis of such code would.
  const depth = { [pName]: loopDepth(shapeP.exponent, shapeP.log), [nName]: loopDepth(shapeN.exponent, shapeN.log) };
  const levels = (param: string) => new Array<string>(depth[param]!).fill(param);
  const product = (...params: string[]) => params.flatMap(levels).join('*');
  /** A chain of loops, outermost first, under `parent`; returns the loops (the innermost last). */
  const chain = (id: string, parent: string | null, ...params: string[]): SyntheticLoop[] =>
    params.flatMap(levels).map((param, k) => ({
      id: `${name}.${id}${k}`,
      function: name,
      parent: k === 0 ? (parent === null ? null : `${name}.${parent}`) : `${name}.${id}${k - 1}`,
      params: [param],
      iterations: null,
    }));
  const terms: Term[] = [{ coefficient: constant, factors: [] }];
  let dependency: string | null = null;
  let loops: SyntheticLoop[] = [];
  switch (family) {
    case 'constant':
      break;
    case 'single': {
      const onP = random() < 0.5;
      terms.push(onP ? termP() : termN());
      dependency = product(onP ? pName : nName);
      loops = chain('L', null, onP ? pName : nName);
      break;
    }
    case 'additive':
      terms.push(termP(), termN());
      dependency = `${product(pName)} + ${product(nName)}`;
      loops = [...chain('L', null, pName), ...chain('M', null, nName)];
      break;
    case 'multiplicative': {
      terms.push(termPN());
      const pOuter = random() < 0.5;
      dependency = pOuter ? product(pName, nName) : product(nName, pName);
      loops = chain('L', null, pOuter ? pName : nName, pOuter ? nName : pName);
      break;
    }
    case 'mixed': {
      // A nest whose outer loop also does work of its own: outer·inner + outer.
      const pOuter = random() < 0.5;
      terms.push(termPN(), pOuter ? termP(outerScale) : termN(outerScale));
      dependency = pOuter ? product(pName, nName) : product(nName, pName);
      loops = chain('L', null, pOuter ? pName : nName, pOuter ? nName : pName);
      break;
    }
    case 'full': {
      // The same nest and a sibling loop over the inner parameter.
      const pOuter = random() < 0.5;
      terms.push(termPN(), termP(pOuter ? outerScale : scale), termN(pOuter ? scale : outerScale));
      const outer = pOuter ? pName : nName;
      const inner = pOuter ? nName : pName;
      dependency = `${product(outer, inner)} + ${product(inner)}`;
      loops = [...chain('L', null, outer, inner), ...chain('M', null, inner)];
      break;
    }
  }
  return { name, family, terms, dependency, loops };
}

/**
 * How repetitions scatter: 'uniform' ±noise relative error (the benchmark's headline, as in
 * Extra-P's evaluations), or 'normal' with the same variance (σ = noise/√3), unbounded.
 */
export type NoiseDistribution = 'uniform' | 'normal';

/** One relative error of the distribution, for half-width `noise`. */
export function relativeError(random: () => number, noise: number, distribution: NoiseDistribution): number {
  if (distribution === 'uniform') return noise * (2 * random() - 1);
  // Box–Muller; 1 − u keeps the logarithm finite.
  const u = 1 - random();
  const v = random();
  return (noise / Math.sqrt(3)) * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Measurements of a function on the design's grid with ±noise relative error. */
export function syntheticSeries(
  random: () => number,
  fn: SyntheticFunction,
  noise: number,
  design = DEFAULT_DESIGN,
  distribution: NoiseDistribution = 'uniform',
): Series {
  const points = [];
  for (const a of design.values[0]) {
    for (const b of design.values[1]) {
      const at = { [design.params[0]]: a, [design.params[1]]: b };
      let exact = 0;
      for (const term of fn.terms) {
        let v = term.coefficient;
        for (const factor of term.factors) v *= evalShape(at[factor.param]!, factor.exponent, factor.log);
        exact += v;
      }
      const values: number[] = [];
      for (let r = 0; r < design.repetitions; r++)
        values.push(exact * (1 + relativeError(random, noise, distribution)));
      points.push({ coords: [a, b], values });
    }
  }
  return { callpath: `main->${fn.name}`, metric: 'time', params: [...design.params], points };
}

/** The taint report (taintlens/taint@1) of a program made of these functions. */
export function syntheticTaintReport(functions: readonly SyntheticFunction[], design = DEFAULT_DESIGN): unknown {
  return {
    schema: 'taintlens/taint@1',
    parameters: [...design.params],
    loops: functions.flatMap((fn) => fn.loops),
    functions: functions.map((fn) => ({
      name: fn.name,
      params: fn.dependency === null ? [] : [...new Set(fn.terms.flatMap((t) => t.factors.map((f) => f.param)))].sort(),
      dependency: fn.dependency,
      pruned: fn.dependency === null ? 'static' : null,
    })),
    warnings: [],
  };
}
