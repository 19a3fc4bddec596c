// Measurements of known functions on a grid, with seeded uniform multiplicative noise.
import { rng } from '../../bench/model/synthetic.js';
import type { Series } from '../../src/model/types.js';

export const P = [4, 8, 16, 32, 64];
export const N = [16, 32, 64, 128, 256];

export function grid2(
  callpath: string,
  f: (p: number, n: number) => number,
  options: { noise?: number; seed?: number; reps?: number; p?: number[]; n?: number[]; metric?: string } = {},
): Series {
  const random = rng(options.seed ?? 1);
  const noise = options.noise ?? 0.01;
  const points = [];
  for (const p of options.p ?? P) {
    for (const n of options.n ?? N) {
      const v = f(p, n);
      points.push({
        coords: [p, n],
        values: Array.from({ length: options.reps ?? 5 }, () => v * (1 + noise * (2 * random() - 1))),
      });
    }
  }
  return { callpath, metric: options.metric ?? 'time', params: ['p', 'n'], points };
}

export function grid1(callpath: string, f: (x: number) => number, xs: number[], noise = 0.01, seed = 1): Series {
  const random = rng(seed);
  return {
    callpath,
    metric: 'time',
    params: ['x'],
    points: xs.map((x) => ({
      coords: [x],
      values: Array.from({ length: 5 }, () => f(x) * (1 + noise * (2 * random() - 1))),
    })),
  };
}

export const log2 = Math.log2;
