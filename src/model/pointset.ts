// The coordinates of a measurement design and everything that depends only on them: the value of
// every candidate factor at every point, the lines along each parameter, and products of factors.
// Call paths measured at the same points share one PointSet, so these are computed once.
import { evalShape, type Shape } from './exponents.js';

/** Fewer distinct values than this and a parameter cannot be modeled at all. */
export const MIN_DISTINCT_VALUES = 3;

export class PointSet {
  readonly n: number;
  readonly m: number;
  /** coords[l][i]: parameter l at point i. */
  readonly coords: Float64Array[];
  readonly shapes: readonly Shape[];
  /** Parameters with enough distinct values to be modeled. */
  readonly usable: boolean[];
  readonly distinct: number[];
  /** allowedShape[l][s]: the shape makes sense for the values of parameter l. */
  readonly allowedShape: boolean[][];
  readonly ones: Float64Array;
  private readonly basisCache: (Float64Array | undefined)[];
  private readonly productCache = new Map<number, Float64Array>();
  private readonly lineCache: (Int32Array[] | undefined)[];

  constructor(points: readonly (readonly number[])[], m: number, shapes: readonly Shape[]) {
    this.n = points.length;
    this.m = m;
    this.shapes = shapes;
    this.coords = [];
    for (let l = 0; l < m; l++) {
      const column = new Float64Array(this.n);
      for (let i = 0; i < this.n; i++) column[i] = points[i]![l]!;
      this.coords.push(column);
    }
    this.distinct = this.coords.map((column) => new Set(column).size);
    this.usable = this.distinct.map((count) => count >= MIN_DISTINCT_VALUES);
    this.allowedShape = this.coords.map((column) => {
      let min = Infinity;
      for (const x of column) min = Math.min(min, x);
      // Like Extra-P: no logarithms of values below one; no fractional powers of negative values.
      return shapes.map((shape) => (shape.log === 0 || min >= 1) && (Number.isInteger(shape.exponent) || min >= 0));
    });
    this.ones = new Float64Array(this.n).fill(1);
    this.basisCache = new Array(m * shapes.length);
    this.lineCache = new Array(m);
  }

  /** Values of shape s of parameter l at every point. */
  basis(l: number, s: number): Float64Array {
    const index = l * this.shapes.length + s;
    let column = this.basisCache[index];
    if (!column) {
      const shape = this.shapes[s]!;
      const x = this.coords[l]!;
      column = new Float64Array(this.n);
      for (let i = 0; i < this.n; i++) column[i] = evalShape(x[i]!, shape.exponent, shape.log);
      this.basisCache[index] = column;
    }
    return column;
  }

  /** Π over the parameters in `mask` of their shapes (shapes[l] for parameter l). */
  product(mask: number, shapes: Int32Array): Float64Array {
    let key = 0;
    let single = -1;
    let count = 0;
    for (let l = 0, radix = 1; l < this.m; l++, radix *= this.shapes.length + 1) {
      if (mask & (1 << l)) {
        key += (shapes[l]! + 1) * radix;
        single = l;
        count++;
      }
    }
    if (count === 1) return this.basis(single, shapes[single]!);
    let column = this.productCache.get(key);
    if (!column) {
      column = new Float64Array(this.n).fill(1);
      for (let l = 0; l < this.m; l++) {
        if (!(mask & (1 << l))) continue;
        const factor = this.basis(l, shapes[l]!);
        for (let i = 0; i < this.n; i++) column[i]! *= factor[i]!;
      }
      this.productCache.set(key, column);
    }
    return column;
  }

  /**
   * The lines along parameter l: groups of points that agree in every other parameter and have at
   * least MIN_DISTINCT_VALUES distinct values of l. When the design has no such line (scattered
   * points), all points form one line.
   */
  lines(l: number): Int32Array[] {
    let lines = this.lineCache[l];
    if (lines) return lines;
    const groups = new Map<string, number[]>();
    for (let i = 0; i < this.n; i++) {
      let key = '';
      for (let k = 0; k < this.m; k++) if (k !== l) key += `${this.coords[k]![i]},`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = []));
      group.push(i);
    }
    const x = this.coords[l]!;
    lines = [...groups.values()]
      .filter((group) => new Set(group.map((i) => x[i])).size >= MIN_DISTINCT_VALUES)
      .map((group) => Int32Array.from(group));
    if (lines.length === 0) lines = [Int32Array.from({ length: this.n }, (_, i) => i)];
    this.lineCache[l] = lines;
    return lines;
  }
}

/** Shares PointSets between series measured at the same coordinates. */
export class PointSetCache {
  private readonly sets = new Map<string, PointSet>();
  constructor(private readonly shapes: readonly Shape[]) {}

  get(points: readonly (readonly number[])[], m: number): PointSet {
    let key = `${m}|`;
    for (const point of points) key += point.join(',') + ';';
    let set = this.sets.get(key);
    if (!set) {
      set = new PointSet(points, m, this.shapes);
      this.sets.set(key, set);
    }
    return set;
  }
}
