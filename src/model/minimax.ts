// Discrete linear Chebyshev (minimax) fits: min over c of max_k w_k·|y_k − Σ_j c_j·X_kj|.
//
// Where the noise of the repetitions is bounded (see noise.ts), the likelihood of a hypothesis
// depends on the data only through the smallest half-width a that contains every repetition, and
// that is this fit's value over each point's smallest and largest repetition. Boundary estimates
// converge like 1/N instead of 1/√N, so it separates neighbouring exponents that least squares on
// aggregated values cannot.
//
// Solved by the simplex method on the dual (Stiefel's exchange in its general form): a basis is a
// reference of q+1 rows with signs, its prices are the fit that levels the reference's residuals
// at ±t, the row with the largest residual enters, and the ratio test picks the row that leaves.
// The dual objective t only grows, so it is a lower bound at every step: the caller can stop a
// fit as soon as it cannot beat the best so far. Columns are scaled to unit norm (t is invariant).
// Columns may be constrained to non-negative coefficients (a cost model's constant: no negative
// time at small inputs). Such a bound is one more dual variable whose column is (e_j; 0): it enters
// when c_j < 0 and pins c_j at 0 while it is in the basis.
// All buffers live in the instance: solving allocates nothing.

const MAX_ITERATIONS = 200;
/** No entering candidate (rows are ≥ 0, the bound of column j is −(j + 1)). */
const NONE = -0x7fffffff;

export class MinimaxFit {
  private readonly a: Float64Array;
  private readonly b: Float64Array;
  private readonly basisRow: Int32Array;
  private readonly basisSign: Float64Array;
  private readonly z: Float64Array;
  private readonly lu: Float64Array;
  private readonly perm: Int32Array;
  private readonly rhs: Float64Array;
  private readonly sol: Float64Array;
  private readonly picked: Uint8Array;
  private readonly work: Float64Array;
  /** Coefficients of the scaled columns (prices) after the last solve; then unscaled by `scale`. */
  readonly coefficients: Float64Array;
  private readonly scale: Float64Array;
  /** Iterations of the last solve. */
  iterations = 0;
  private lastRows = -1;
  private lastCols = -1;
  private lastBounds = 0;

  constructor(
    readonly maxRows: number,
    readonly maxCols: number,
  ) {
    const q1 = maxCols + 1;
    this.a = new Float64Array(maxRows * maxCols);
    this.b = new Float64Array(maxRows);
    this.basisRow = new Int32Array(q1);
    this.basisSign = new Float64Array(q1);
    this.z = new Float64Array(q1);
    this.lu = new Float64Array(q1 * q1);
    this.perm = new Int32Array(q1);
    this.rhs = new Float64Array(q1);
    this.sol = new Float64Array(q1);
    this.picked = new Uint8Array(maxRows);
    this.work = new Float64Array(maxRows * q1);
    this.coefficients = new Float64Array(maxCols);
    this.scale = new Float64Array(maxCols);
  }

  /**
   * The minimax weighted residual over the first `rows` rows and `cols` columns, or a lower bound
   * of it above `stopAbove` as soon as that is certain. Infinity when the columns are dependent or
   * not finite, or there are fewer rows than columns + 1. `nonNegative` is a bit mask of the columns
   * whose coefficients must not be negative. `coefficients` hold the fit only after a full solve.
   * `warm` starts from the last solve's reference when it still is one (same shape of problem,
   * non-negative dual weights): for a sequence of similar problems its level is already close, so
   * the cut-off usually ends a losing problem at the first step.
   */
  solve(
    columns: readonly Float64Array[],
    cols: number,
    weights: Float64Array,
    y: Float64Array,
    rows: number,
    stopAbove = Infinity,
    nonNegative = 0,
    warm = false,
    period = rows,
  ): number {
    const { a, b, maxCols, scale } = this;
    const q = cols;
    const q1 = q + 1;
    if (rows < q1) return Infinity;
    for (let j = 0; j < q; j++) {
      const column = columns[j]!;
      let norm2 = 0;
      for (let k = 0, i = 0; k < rows; k++, i = i + 1 === period ? 0 : i + 1) {
        const v = weights[k]! * column[i]!;
        norm2 += v * v;
      }
      if (!(norm2 > 0) || !Number.isFinite(norm2)) return Infinity;
      scale[j] = Math.sqrt(norm2);
    }
    const sameShape = this.lastRows === rows && this.lastCols === q && this.lastBounds === nonNegative;
    this.lastRows = rows;
    this.lastCols = q;
    this.lastBounds = nonNegative;
    // A warm reference needs only its own rows to give a lower bound that may already end it all.
    if (warm && sameShape) {
      for (let i = 0; i < q1; i++)
        if (this.basisRow[i]! >= 0) this.fillRow(columns, q, weights, y, this.basisRow[i]!, period);
      if (this.warmReference(q)) {
        const t = this.referenceLevel(q);
        if (t > stopAbove) return t;
        this.fillRows(columns, q, weights, y, rows, period);
      } else {
        this.fillRows(columns, q, weights, y, rows, period);
        if (!this.initialReference(rows, q)) return this.forget();
      }
    } else {
      this.fillRows(columns, q, weights, y, rows, period);
      if (!this.initialReference(rows, q)) return this.forget();
    }

    const { basisRow, basisSign, z, rhs, sol, coefficients } = this;
    let t = 0;
    let degenerate = 0;
    for (this.iterations = 0; this.iterations < MAX_ITERATIONS; this.iterations++) {
      if (!this.factorBasis(q)) return this.forget();
      t = this.referenceLevel(q);
      if (t > stopAbove) return t;
      // The row that violates the level most enters (Bland's smallest index after degenerate steps),
      // or a bound whose coefficient went negative.
      let enter = NONE;
      let enterSign = 1;
      let gain = 1e-12 * t + 1e-300;
      for (let j = 0; j < q; j++) {
        if (nonNegative & (1 << j) && -coefficients[j]! > gain) {
          enter = -(j + 1);
          gain = -coefficients[j]!;
        }
      }
      for (let k = 0; k < rows && !(degenerate > 2 && enter !== NONE); k++) {
        let fitted = 0;
        for (let j = 0; j < q; j++) fitted += a[k * maxCols + j]! * coefficients[j]!;
        const r = b[k]! - fitted;
        const size = Math.abs(r) - t;
        if (size > gain) {
          enter = k;
          enterSign = r >= 0 ? 1 : -1;
          gain = size;
        }
      }
      if (enter === NONE) break;
      // Ratio test on B·d = the entering column: (s·a_enter; 1) for a row, (e_j; 0) for a bound.
      if (enter >= 0) {
        for (let j = 0; j < q; j++) rhs[j] = enterSign * a[enter * maxCols + j]!;
        rhs[q] = 1;
      } else {
        rhs.fill(0, 0, q1);
        rhs[-enter - 1] = 1;
      }
      this.solveBasis(q1);
      let leave = -1;
      let theta = Infinity;
      for (let i = 0; i < q1; i++) {
        const d = sol[i]!;
        if (d > 1e-12) {
          const ratio = z[i]! / d;
          if (ratio < theta - 1e-15 || (Math.abs(ratio - theta) <= 1e-15 && leave >= 0 && d > sol[leave]!)) {
            theta = ratio;
            leave = i;
          }
        }
      }
      if (leave < 0) break;
      degenerate = theta < 1e-14 ? degenerate + 1 : 0;
      for (let i = 0; i < q1; i++) z[i]! -= theta * sol[i]!;
      z[leave] = theta;
      basisRow[leave] = enter;
      basisSign[leave] = enterSign;
    }
    for (let j = 0; j < q; j++) coefficients[j]! /= this.scale[j]!;
    return Math.max(0, t);
  }

  /**
   * A first reference: q rows whose a_k are independent (picked greedily by largest remaining
   * norm) and one more row e; the dual weights λ span the null space of the reference's rows
   * (λ_e = 1, Mᵀ·λ_M = −a_e), signs from λ's, and the whole sign flipped so that t ≥ 0.
   */
  private initialReference(rows: number, q: number): boolean {
    const { a, maxCols, work, picked, basisRow, basisSign, z, lu, rhs, sol } = this;
    const q1 = q + 1;
    picked.fill(0, 0, rows);
    for (let k = 0; k < rows * q; k++) work[k] = a[Math.floor(k / q) * maxCols + (k % q)]!;
    for (let i = 0; i < q; i++) {
      let best = -1;
      let bestNorm = 0;
      for (let k = 0; k < rows; k++) {
        if (picked[k]) continue;
        let norm = 0;
        for (let j = 0; j < q; j++) norm += work[k * q + j]! * work[k * q + j]!;
        if (norm > bestNorm) {
          bestNorm = norm;
          best = k;
        }
      }
      if (best < 0 || !(bestNorm > 1e-20)) return false;
      picked[best] = 1;
      basisRow[i] = best;
      const inv = 1 / bestNorm;
      for (let k = 0; k < rows; k++) {
        if (picked[k]) continue;
        let dot = 0;
        for (let j = 0; j < q; j++) dot += work[k * q + j]! * work[best * q + j]!;
        for (let j = 0; j < q; j++) work[k * q + j]! -= dot * inv * work[best * q + j]!;
      }
    }
    // Mᵀ: column i is a_{row i}; the extra row is the first one not picked.
    for (let i = 0; i < q; i++) {
      const k = basisRow[i]!;
      for (let j = 0; j < q; j++) lu[j * q + i] = a[k * maxCols + j]!;
    }
    let extra = 0;
    while (picked[extra]) extra++;
    for (let j = 0; j < q; j++) rhs[j] = -a[extra * maxCols + j]!;
    if (!this.nullVector(q)) return false;
    basisRow[q] = extra;
    let total = 0;
    let objective = 0;
    for (let i = 0; i < q1; i++) {
      total += Math.abs(sol[i]!);
      objective += sol[i]! * this.b[basisRow[i]!]!;
    }
    const flip = objective < 0 ? -1 : 1;
    for (let i = 0; i < q1; i++) {
      const lambda = sol[i]!;
      basisSign[i] = (lambda < 0 ? -1 : 1) * flip;
      z[i] = Math.abs(lambda) / total;
    }
    return true;
  }

  /** Row k of the scaled, weighted problem (`scale` set): a_k and b_k. */
  private fillRow(
    columns: readonly Float64Array[],
    q: number,
    weights: Float64Array,
    y: Float64Array,
    k: number,
    period: number,
  ): void {
    const { a, b, scale, maxCols } = this;
    const i = k % period;
    const w = weights[k]!;
    for (let j = 0; j < q; j++) a[k * maxCols + j] = (w * columns[j]![i]!) / scale[j]!;
    b[k] = w * y[k]!;
  }

  /** Every row, column by column (rows beyond `period` repeat the columns' values). */
  private fillRows(
    columns: readonly Float64Array[],
    q: number,
    weights: Float64Array,
    y: Float64Array,
    rows: number,
    period: number,
  ): void {
    const { a, b, scale, maxCols } = this;
    for (let j = 0; j < q; j++) {
      const column = columns[j]!;
      const inverse = 1 / scale[j]!;
      for (let k = 0, i = 0; k < rows; k++, i = i + 1 === period ? 0 : i + 1)
        a[k * maxCols + j] = weights[k]! * column[i]! * inverse;
    }
    for (let k = 0; k < rows; k++) b[k] = weights[k]! * y[k]!;
  }

  /**
   * Prices of the factored reference: s_k·(a_k·c) + t = s_k·b_k on its rows, i.e. Bᵀ·(c, t) =
   * (s_k·b_k), with c left in `coefficients`; returns the level t (the dual objective).
   */
  private referenceLevel(q: number): number {
    const { basisRow, basisSign, b, rhs, sol, coefficients } = this;
    const q1 = q + 1;
    for (let i = 0; i < q1; i++) rhs[i] = basisRow[i]! >= 0 ? basisSign[i]! * b[basisRow[i]!]! : 0;
    this.solveTransposed(q1);
    for (let j = 0; j < q; j++) coefficients[j] = sol[j]!;
    return sol[q]!;
  }

  /** The current reference (rows and signs), to warm-start a later solve from it. */
  saveReference(): { rows: Int32Array; signs: Float64Array } {
    const count = this.lastCols + 1;
    return { rows: this.basisRow.slice(0, count), signs: this.basisSign.slice(0, count) };
  }

  /**
   * A lower bound of the minimax level without solving: the level over the rows of a saved
   * reference alone (de la Vallée Poussin), |λ·b| / |λ|₁ with λ spanning the null space of those
   * rows' values. Touches only those q+1 rows. 0 when they are dependent or the reference pins a
   * bound. Each column is scaled by its largest value on the rows, which leaves λ as it is.
   */
  referenceBound(
    columns: readonly Float64Array[],
    cols: number,
    weights: Float64Array,
    y: Float64Array,
    reference: { rows: Int32Array },
    period: number,
  ): number {
    const { lu, rhs, sol } = this;
    const q = cols;
    const rows = reference.rows;
    if (rows.length !== q + 1) return 0;
    for (let i = 0; i <= q; i++) if (rows[i]! < 0) return 0;
    const extra = rows[q]!;
    for (let j = 0; j < q; j++) {
      const column = columns[j]!;
      let max = 0;
      for (let i = 0; i <= q; i++) max = Math.max(max, Math.abs(weights[rows[i]!]! * column[rows[i]! % period]!));
      if (!(max > 0) || !Number.isFinite(max)) return 0;
      for (let i = 0; i < q; i++) lu[j * q + i] = (weights[rows[i]!]! * column[rows[i]! % period]!) / max;
      rhs[j] = -(weights[extra]! * column[extra % period]!) / max;
    }
    if (!this.nullVector(q)) return 0;
    let total = 0;
    let objective = 0;
    for (let i = 0; i <= q; i++) {
      total += Math.abs(sol[i]!);
      objective += sol[i]! * weights[rows[i]!]! * y[rows[i]!]!;
    }
    const level = Math.abs(objective) / total;
    return Number.isFinite(level) ? level : 0;
  }

  /**
   * λ spanning the null space of q+1 rows' values, λ_q = 1: with `lu` holding Mᵀ (column i the
   * values of row i < q) and `rhs` the last row's values negated, solves Mᵀ·λ = rhs into `sol`.
   */
  private nullVector(q: number): boolean {
    if (!this.factor(q)) return false;
    this.solveBasis(q);
    this.sol[q] = 1;
    return true;
  }

  /** Makes a saved reference the one the next warm solve starts from. */
  loadReference(saved: { rows: Int32Array; signs: Float64Array }): void {
    this.basisRow.set(saved.rows);
    this.basisSign.set(saved.signs);
  }

  /** No usable reference: the next warm start begins afresh. */
  private forget(): number {
    this.lastRows = -1;
    return Infinity;
  }

  /** The previous reference (factored), if B·z = (0; 1) still has a non-negative solution for it. */
  private warmReference(q: number): boolean {
    const { z, rhs, sol } = this;
    const q1 = q + 1;
    if (!this.factorBasis(q)) return false;
    rhs.fill(0, 0, q1);
    rhs[q] = 1;
    this.solveBasis(q1);
    for (let i = 0; i < q1; i++) if (!(sol[i]! >= -1e-12)) return false;
    for (let i = 0; i < q1; i++) z[i] = Math.max(0, sol[i]!);
    return true;
  }

  /** LU of B, whose column i is (s_i·a_{row i}; 1). */
  private factorBasis(q: number): boolean {
    const { a, maxCols, lu, basisRow, basisSign } = this;
    const q1 = q + 1;
    for (let i = 0; i < q1; i++) {
      const k = basisRow[i]!;
      if (k < 0) {
        for (let j = 0; j < q; j++) lu[j * q1 + i] = j === -k - 1 ? 1 : 0;
        lu[q * q1 + i] = 0;
        continue;
      }
      const s = basisSign[i]!;
      for (let j = 0; j < q; j++) lu[j * q1 + i] = s * a[k * maxCols + j]!;
      lu[q * q1 + i] = 1;
    }
    return this.factor(q1);
  }

  /** In-place LU with partial pivoting of the n×n matrix in `lu`. */
  private factor(n: number): boolean {
    const { lu, perm } = this;
    for (let i = 0; i < n; i++) perm[i] = i;
    for (let c = 0; c < n; c++) {
      let p = c;
      let max = Math.abs(lu[c * n + c]!);
      for (let r = c + 1; r < n; r++) {
        const v = Math.abs(lu[r * n + c]!);
        if (v > max) {
          max = v;
          p = r;
        }
      }
      if (!(max > 1e-13)) return false;
      if (p !== c) {
        for (let j = 0; j < n; j++) {
          const tmp = lu[c * n + j]!;
          lu[c * n + j] = lu[p * n + j]!;
          lu[p * n + j] = tmp;
        }
        const tmp = perm[c]!;
        perm[c] = perm[p]!;
        perm[p] = tmp;
      }
      const pivot = lu[c * n + c]!;
      for (let r = c + 1; r < n; r++) {
        const f = (lu[r * n + c]! /= pivot);
        if (f !== 0) for (let j = c + 1; j < n; j++) lu[r * n + j]! -= f * lu[c * n + j]!;
      }
    }
    return true;
  }

  /** sol = B⁻¹·rhs with the current LU (P·B = L·U). */
  private solveBasis(n: number): void {
    const { lu, perm, rhs, sol } = this;
    for (let i = 0; i < n; i++) {
      let v = rhs[perm[i]!]!;
      for (let j = 0; j < i; j++) v -= lu[i * n + j]! * sol[j]!;
      sol[i] = v;
    }
    for (let i = n - 1; i >= 0; i--) {
      let v = sol[i]!;
      for (let j = i + 1; j < n; j++) v -= lu[i * n + j]! * sol[j]!;
      sol[i] = v / lu[i * n + i]!;
    }
  }

  /** sol = B⁻ᵀ·rhs with the current LU: Bᵀ = Uᵀ·Lᵀ·P. */
  private solveTransposed(n: number): void {
    const { lu, perm, rhs, sol, work } = this;
    // Uᵀ·w = rhs
    for (let i = 0; i < n; i++) {
      let v = rhs[i]!;
      for (let j = 0; j < i; j++) v -= lu[j * n + i]! * work[j]!;
      work[i] = v / lu[i * n + i]!;
    }
    // Lᵀ·u = w
    for (let i = n - 1; i >= 0; i--) {
      let v = work[i]!;
      for (let j = i + 1; j < n; j++) v -= lu[j * n + i]! * work[j]!;
      work[i] = v;
    }
    // x = Pᵀ·u
    for (let i = 0; i < n; i++) sol[perm[i]!] = work[i]!;
  }
}
