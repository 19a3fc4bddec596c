// The search beyond one shape per parameter (searchModel's last stage where the tied models
// misfit): other shared shapes, a shape of its own for a single-parameter term, dropping and
// adding terms, greedily.
import type { PointSet } from './pointset.js';
import type { Fit, SearchOptions } from './search.js';
import { normalizeShared, popcount, rareShapes, refit, scoreFit, type Workspace } from './search-fit.js';
/**
 * When the best grid hypothesis misfits well beyond the repetition noise, its structure may be
 * outside the tied space (one shape per parameter): p·n + n^2 has two shapes of n. A greedy local
 * search then tries, from the selected model: another shared shape for a parameter; a shape of its
 * own for a single-parameter term (or tying it back); dropping a term; adding an allowed term with
 * any shape. Each extra shape costs as much as an extra parameter. Scores are judged against the
 * repetition noise where known (σ² may have been raised to the tied models' misfit, which would
 * hide exactly what this explains). Works on the point set's cached columns.
 */
export function localSearch(
  ps: PointSet,
  y: Float64Array,
  ws: Workspace,
  fit: Fit,
  shared: Int32Array,
  allowedMasks: readonly number[],
  sigma2: number,
  noiseVar: number,
  options: SearchOptions,
  shapeOk: (l: number, s: number) => boolean = () => true,
): void {
  // Identical repetitions (noise 0): any misfit is beyond the noise, so the search always runs,
  // and moves are judged against the tied models' misfit (against the zero noise, every extra
  // term would pay for itself).
  const exactData = noiseVar === 0;
  const scale = !exactData && Number.isFinite(noiseVar) && noiseVar > 0 ? noiseVar : sigma2;
  const dof = ps.n - fit.masks.length - 1;
  if (dof <= 0 || (!exactData && fit.rss / dof <= options.refineThreshold * scale)) return;
  const rare = rareShapes(ps.shapes);
  const { ls, columns, weights } = ws;
  const maxTerms = Math.min(options.maxTerms + 1, ps.n - 2);
  let masks = [...fit.masks];
  let own: Int32Array = new Int32Array(masks.length).fill(-1);
  const shapes = Int32Array.from(shared);
  const scoreOf = (termMasks: readonly number[], termOwn: Int32Array, sharedShapes: Int32Array): number => {
    columns[0] = ps.ones;
    let union = 0;
    let penalty = options.termPenalty * termMasks.length;
    for (let t = 0; t < termMasks.length; t++) {
      const mask = termMasks[t]!;
      const o = termOwn[t]!;
      if (o >= 0) {
        columns[t + 1] = ps.basis(Math.log2(mask), o);
        penalty += options.paramPenalty + (rare[o] ? options.rareShapePenalty : 0);
      } else {
        columns[t + 1] = ps.product(mask, sharedShapes);
        union |= mask;
      }
    }
    for (let l = 0; l < ps.m; l++) {
      if (!(union & (1 << l))) continue;
      penalty += options.paramPenalty + (rare[sharedShapes[l]!] ? options.rareShapePenalty : 0);
    }
    // A parameter only in untied terms still counts once as a parameter (its first own shape).
    for (let t = 0; t < termMasks.length; t++) {
      if (termOwn[t]! >= 0 && !(union & termMasks[t]!)) {
        penalty -= options.paramPenalty;
        union |= termMasks[t]!;
      }
    }
    return ls.fit(columns, termMasks.length + 1, weights, y, ps.n) ? ls.rss / scale + penalty : Infinity;
  };
  let best = scoreOf(masks, own, shapes);
  const start = best;
  for (let iteration = 0; iteration < 12; iteration++) {
    let bestMove: { masks: number[]; own: Int32Array; shapes: Int32Array } | undefined;
    const consider = (candidateMasks: number[], candidateOwn: Int32Array, candidateShapes: Int32Array) => {
      const score = scoreOf(candidateMasks, candidateOwn, candidateShapes);
      if (score < best - 1e-9) {
        best = score;
        bestMove = {
          masks: candidateMasks,
          own: Int32Array.from(candidateOwn),
          shapes: Int32Array.from(candidateShapes),
        };
      }
    };
    const sharedUse = (l: number) => masks.some((mask, t) => mask & (1 << l) && own[t]! < 0);
    // Another shared shape for a parameter.
    for (let l = 0; l < ps.m; l++) {
      if (!sharedUse(l)) continue;
      const keep = shapes[l]!;
      for (let s = 0; s < ps.shapes.length; s++) {
        if (s === keep || !ps.allowedShape[l]![s] || !shapeOk(l, s)) continue;
        shapes[l] = s;
        consider(masks, own, shapes);
      }
      shapes[l] = keep;
    }
    // A single-parameter term's own shape, or tied back.
    for (let t = 0; t < masks.length; t++) {
      if (popcount(masks[t]!) !== 1) continue;
      const l = Math.log2(masks[t]!);
      const keep = own[t]!;
      for (let s = -1; s < ps.shapes.length; s++) {
        if (
          s === keep ||
          (s >= 0 && (!ps.allowedShape[l]![s] || !shapeOk(l, s) || s === shapes[l])) ||
          (s < 0 && shapes[l]! < 0)
        )
          continue;
        own[t] = s;
        consider(masks, own, shapes);
      }
      own[t] = keep;
    }
    // A tied single-parameter term keeps its shape while the other terms of its parameter move.
    for (let t = 0; t < masks.length; t++) {
      if (popcount(masks[t]!) !== 1 || own[t]! >= 0) continue;
      const l = Math.log2(masks[t]!);
      if (!masks.some((mask, u) => u !== t && mask & (1 << l) && own[u]! < 0)) continue;
      const keep = shapes[l]!;
      own[t] = keep;
      for (let s = 0; s < ps.shapes.length; s++) {
        if (s === keep || !ps.allowedShape[l]![s] || !shapeOk(l, s)) continue;
        shapes[l] = s;
        consider(masks, own, shapes);
      }
      shapes[l] = keep;
      own[t] = -1;
    }
    // Drop a term.
    for (let t = 0; t < masks.length; t++) {
      consider(
        masks.filter((_, u) => u !== t),
        Int32Array.from(own).filter((_, u) => u !== t),
        shapes,
      );
    }
    // Add an allowed term.
    if (masks.length < maxTerms) {
      for (const mask of allowedMasks) {
        // On exact data (identical repetitions, where no closed form was exact), a second term
        // over the same parameter with a shape of its own (n^3 + n^2). On noisy data that extra
        // freedom fits noise rather than refining an exponent, so there each subset appears once.
        if (masks.includes(mask) && (!exactData || popcount(mask) > 1)) continue;
        let ready = true;
        for (let l = 0; l < ps.m; l++) if (mask & (1 << l) && popcount(mask) > 1 && shapes[l]! < 0) ready = false;
        if (!ready) continue;
        const nextMasks = [...masks, mask];
        const nextOwn = Int32Array.from([...own, -1]);
        if (popcount(mask) > 1) {
          consider(nextMasks, nextOwn, shapes);
          continue;
        }
        const l = Math.log2(mask);
        for (let s = 0; s < ps.shapes.length; s++) {
          if (!ps.allowedShape[l]![s] || !shapeOk(l, s)) continue;
          if (shapes[l]! >= 0) {
            if (masks.some((existing, t) => existing === mask && (own[t]! >= 0 ? own[t] : shapes[l]) === s)) continue;
            nextOwn[masks.length] = s === shapes[l] ? -1 : s;
            consider(nextMasks, nextOwn, shapes);
          } else {
            shapes[l] = s;
            nextOwn[masks.length] = -1;
            consider(nextMasks, nextOwn, shapes);
            shapes[l] = -1;
          }
        }
      }
    }
    if (!bestMove) break;
    const move: { masks: number[]; own: Int32Array; shapes: Int32Array } = bestMove;
    masks = move.masks;
    own = move.own;
    shapes.set(move.shapes);
  }
  if (!(best < start)) return;
  fit.masks = masks;
  fit.own = Array.from(own, (o) => (o >= 0 ? { exponent: ps.shapes[o]!.exponent, log: ps.shapes[o]!.log } : null));
  fit.factors = Array.from(shapes, (s, l) =>
    s >= 0 && masks.some((mask, t) => mask & (1 << l) && own[t]! < 0)
      ? { exponent: ps.shapes[s]!.exponent, log: ps.shapes[s]!.log }
      : null,
  );
  refit(ps, y, ws, fit);
  normalizeShared(fit);
  fit.score = scoreFit(fit, sigma2, options);
}
