// The bounded choice of the model search (search.ts): under bounded noise, the few best structures
// by least squares, each with the shapes that cover every repetition most tightly (bounded.ts),
// compete on the bounded likelihood plus the same structure penalties.
import { boundedShapes, type RepetitionBounds } from './bounded.js';
import type { PointSet } from './pointset.js';
import { rareShapes } from './search-fit.js';
import { structurePenalty, type Hypotheses } from './search-hypotheses.js';
import type { SearchOptions } from './search.js';

/** Per parameter the shapes the bounded choice may take: of all, and within the loop depths. */
export interface BoundedCandidates {
  all: number[][];
  within: number[][];
  /** Both lists are the same, so a choice over all shapes that keeps to the depths is a choice within them. */
  same: boolean;
}

/** A picked record, with the bounded choice of shapes when it overrides the record's own. */
export interface Pick {
  h: number;
  choice: Int32Array | null;
}

type BoundedResult = ReturnType<typeof boundedShapes>;

/** Picks records by their bounded score; remembers each structure's bounded shapes across picks. */
export class BoundedChooser {
  /** Per structure: its bounded shapes over all candidates [0] and within the depths [1]. */
  private readonly caches = [new Map<number, BoundedResult>(), new Map<number, BoundedResult>()];

  constructor(
    private readonly ps: PointSet,
    private readonly records: Hypotheses,
    private readonly scoreOf: (r: number) => number,
    private readonly candidates: BoundedCandidates,
    private readonly bounds: RepetitionBounds,
    private readonly options: SearchOptions,
    /** The record's shapes keep to the loop depths; undefined without depths. */
    private readonly recordWithin: ((r: number) => boolean) | undefined,
    private readonly withinDepth: (l: number, s: number) => boolean,
  ) {}

  /** The best record by bounded score among the structures `allowed` admits (all when undefined). */
  pick(allowed: ((masks: readonly number[]) => boolean) | undefined): Pick {
    const { records, options } = this;
    const restricted = allowed !== undefined && this.recordWithin !== undefined;
    const ranked = this.bestPerStructure(allowed, restricted);
    let pick: Pick = { h: ranked[0]?.h ?? -1, choice: null };
    let pickScore = Infinity;
    for (const { h } of ranked) {
      const masks = records.list[records.structure[h]!]!;
      const penalty = options.boundedPenaltyScale * structurePenalty(masks, options);
      const result = this.boundedOf(records.structure[h]!, restricted);
      if (!result) continue;
      if (result.score + penalty < pickScore) {
        pickScore = result.score + penalty;
        pick = { h, choice: result.choice };
      }
    }
    return pick;
  }

  /** The best-scoring record of each admitted structure, the `boundedStructures` best of them first. */
  private bestPerStructure(
    allowed: ((masks: readonly number[]) => boolean) | undefined,
    restricted: boolean,
  ): Array<{ h: number; score: number }> {
    const { records } = this;
    const bestOf = new Map<number, { h: number; score: number }>();
    for (let h = 0; h < records.rss.length; h++) {
      const si = records.structure[h]!;
      if (allowed && !allowed(records.list[si]!)) continue;
      if (restricted && !this.recordWithin!(h)) continue;
      const score = this.scoreOf(h);
      const current = bestOf.get(si);
      if (!current || score < current.score) bestOf.set(si, { h, score });
    }
    return [...bestOf.values()].sort((a, b) => a.score - b.score).slice(0, this.options.boundedStructures);
  }

  /** The bounded shapes of structure `si`, computed once per structure and restriction. */
  private boundedOf(si: number, restricted: boolean): BoundedResult {
    const cache = this.caches[restricted ? 1 : 0]!;
    let result = cache.get(si);
    // The unrestricted choice for the structure, when it keeps to the depths, is the restricted one too.
    const shared = restricted ? this.caches[0]!.get(si) : undefined;
    if (
      result === undefined &&
      shared &&
      this.candidates.same &&
      [...shared.choice].every((s, l) => s < 0 || this.withinDepth(l, s))
    )
      result = shared;
    if (result === undefined) {
      const rare = rareShapes(this.ps.shapes);
      const shapePenalty = (_: number, s: number) => (rare[s] ? this.options.rareShapePenalty : 0);
      const masks = this.records.list[si]!;
      result = restricted
        ? boundedShapes(this.ps, masks, this.candidates.within, this.bounds, shapePenalty, this.withinDepth)
        : boundedShapes(this.ps, masks, this.candidates.all, this.bounds, shapePenalty);
      cache.set(si, result);
    }
    return result;
  }
}
