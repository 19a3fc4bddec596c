// Small dense weighted least squares for model hypotheses: a handful of columns, tens of rows.
//
// Each column is weighted by the row weights, scaled to unit norm (so p^3·log2(p)^2 next to a
// constant does not ruin the conditioning), and orthogonalized by Gram–Schmidt with one full
// re-orthogonalization pass ("twice is enough"), which keeps Q orthonormal to working precision
// for the few columns we use. The fit then comes from R·c = Qᵀ·z by back substitution, and the
// leave-one-out residuals from the hat-matrix diagonal h_ii = Σ_j Q_ij², without refitting.
// All buffers live in the workspace: fitting allocates nothing.

/** A column whose norm after orthogonalization falls below this share of its own norm is dependent. */
const RANK_TOLERANCE = 1e-10;

export class LeastSquares {
  readonly maxRows: number;
  readonly maxCols: number;
  /** Orthonormal columns of the weighted, scaled design matrix; column j at j·maxRows. */
  private readonly q: Float64Array;
  private readonly r: Float64Array;
  private readonly scale: Float64Array;
  private readonly qtz: Float64Array;
  /** Weighted residuals z − Q·Qᵀ·z after the last fit. */
  readonly residual: Float64Array;
  /** Hat-matrix diagonal after the last fit. */
  readonly leverage: Float64Array;
  /** Coefficients of the unweighted columns after the last fit. */
  readonly coefficients: Float64Array;
  /** Residual sum of squares of each prefix of the columns (nested models come for free). */
  readonly prefixRss: Float64Array;
  /**
   * Leave-one-out prediction error (PRESS: Σ (e_i / (1 − h_ii))²) of each prefix of the columns,
   * from the hat diagonal accumulated column by column; Infinity where a point has leverage one.
   */
  readonly prefixPress: Float64Array;
  rows = 0;
  cols = 0;
  rss = 0;
  /** Columns orthogonalized before a dependent one stopped the last fit (prefixRss is valid up to here). */
  okCols = 0;

  constructor(maxRows: number, maxCols: number) {
    this.maxRows = maxRows;
    this.maxCols = maxCols;
    this.q = new Float64Array(maxRows * maxCols);
    this.r = new Float64Array(maxCols * maxCols);
    this.scale = new Float64Array(maxCols);
    this.qtz = new Float64Array(maxCols);
    this.residual = new Float64Array(maxRows);
    this.leverage = new Float64Array(maxRows);
    this.coefficients = new Float64Array(maxCols);
    this.prefixRss = new Float64Array(maxCols);
    this.prefixPress = new Float64Array(maxCols);
  }

  /**
   * Minimizes Σ_i (w_i · (y_i − Σ_j c_j · X_ij))² over the first `cols` columns and `rows` rows.
   * Returns false (and leaves the results undefined) when the columns are linearly dependent on
   * these rows or not finite.
   */
  fit(columns: readonly Float64Array[], cols: number, weights: Float64Array, y: Float64Array, rows: number): boolean {
    const { q, r, maxRows, maxCols, residual, scale, qtz, prefixRss, prefixPress, coefficients } = this;
    this.rows = rows;
    this.cols = cols;
    this.okCols = 0;
    const leverage = this.leverage;
    for (let i = 0; i < rows; i++) {
      residual[i] = weights[i]! * y[i]!;
      leverage[i] = 0;
    }
    for (let j = 0; j < cols; j++) {
      const column = columns[j]!;
      const qj = j * maxRows;
      let norm2 = 0;
      for (let i = 0; i < rows; i++) {
        const v = weights[i]! * column[i]!;
        q[qj + i] = v;
        norm2 += v * v;
      }
      if (!(norm2 > 0) || !Number.isFinite(norm2)) return false;
      const s = Math.sqrt(norm2);
      scale[j] = s;
      for (let i = 0; i < rows; i++) q[qj + i]! /= s;
      for (let l = 0; l < j; l++) r[l * maxCols + j] = 0;
      // Unit norm before; a second pass only when the first cancelled much of it ("twice is enough").
      let rest = 1;
      for (let pass = 0; pass < 2 && j > 0; pass++) {
        for (let l = 0; l < j; l++) {
          const ql = l * maxRows;
          let dot = 0;
          for (let i = 0; i < rows; i++) dot += q[ql + i]! * q[qj + i]!;
          r[l * maxCols + j]! += dot;
          for (let i = 0; i < rows; i++) q[qj + i]! -= dot * q[ql + i]!;
        }
        const before = rest;
        rest = 0;
        for (let i = 0; i < rows; i++) rest += q[qj + i]! * q[qj + i]!;
        if (rest > 0.5 * before) break;
      }
      const restNorm = Math.sqrt(rest);
      if (!(restNorm > RANK_TOLERANCE)) return false;
      r[j * maxCols + j] = restNorm;
      for (let i = 0; i < rows; i++) q[qj + i]! /= restNorm;
      // Project the right-hand side out of this direction (modified Gram–Schmidt on z).
      let t = 0;
      for (let i = 0; i < rows; i++) t += q[qj + i]! * residual[i]!;
      qtz[j] = t;
      let rss = 0;
      let press = 0;
      for (let i = 0; i < rows; i++) {
        const qi = q[qj + i]!;
        const e = residual[i]! - t * qi;
        residual[i] = e;
        rss += e * e;
        const h = leverage[i]! + qi * qi;
        leverage[i] = h;
        const loo = e / (1 - h);
        press += 1 - h < 1e-9 ? Infinity : loo * loo;
      }
      prefixRss[j] = rss;
      prefixPress[j] = press;
      this.okCols = j + 1;
    }
    if (cols === 0) {
      let rss = 0;
      for (let i = 0; i < rows; i++) rss += residual[i]! * residual[i]!;
      this.rss = rss;
    } else {
      this.rss = prefixRss[cols - 1]!;
    }
    // Back substitution R·c = Qᵀz, then undo the column scaling.
    for (let j = cols - 1; j >= 0; j--) {
      let sum = qtz[j]!;
      for (let l = j + 1; l < cols; l++) sum -= r[j * maxCols + l]! * coefficients[l]!;
      coefficients[j] = sum / r[j * maxCols + j]!;
    }
    for (let j = 0; j < cols; j++) coefficients[j]! /= scale[j]!;
    return Number.isFinite(this.rss);
  }

  /** Fills `leverage` with the hat-matrix diagonal of the last fit. */
  computeLeverage(): void {
    const { q, maxRows, leverage, rows, cols } = this;
    leverage.fill(0, 0, rows);
    for (let j = 0; j < cols; j++) {
      const qj = j * maxRows;
      for (let i = 0; i < rows; i++) leverage[i]! += q[qj + i]! * q[qj + i]!;
    }
  }

  /**
   * PRESS: the sum of squared (weighted) leave-one-out prediction errors, e_i / (1 − h_ii).
   * Infinite when a point has leverage one (leaving it out leaves the model undetermined).
   */
  press(): number {
    this.computeLeverage();
    let sum = 0;
    for (let i = 0; i < this.rows; i++) {
      const denominator = 1 - this.leverage[i]!;
      if (denominator < 1e-9) return Infinity;
      const e = this.residual[i]! / denominator;
      sum += e * e;
    }
    return sum;
  }
}
