// Which parameters to model (issue #16, step 1): the ones that reach the most work. A parameter
// reaches a loop when it is among the parameters of the loop's exit conditions (taint report) or
// of a loop around it, across calls (the loop profile's dynamic loop tree); the work it reaches is
// the instructions inside the outermost such loops of every calling context, at the base point.
import type { LoopEntry } from '../profile/loop-profile.js';

export interface ParameterWork {
  name: string;
  /** Instructions inside the loops the parameter drives (or that run inside them), at the base point. */
  instructions: number;
  /** Of the run's instructions. */
  share: number;
  loops: number;
  chosen: boolean;
  why: string;
}

/**
 * Work per candidate, most first. `loopParams` maps a loop id (`L3`) to the parameters of its exit
 * conditions; `entries` are the loop profile's loops per calling context (parents across calls).
 */
export function workPerParameter(
  candidates: readonly string[],
  loopParams: ReadonlyMap<string, readonly string[]>,
  entries: readonly LoopEntry[],
  total: number,
): Array<Omit<ParameterWork, 'chosen' | 'why'>> {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const drivenBy = (entry: LoopEntry, name: string) => loopParams.get(entry.loop)?.includes(name) === true;
  return candidates
    .map((name) => {
      let instructions = 0;
      let loops = 0;
      for (const entry of entries) {
        if (!drivenBy(entry, name)) continue;
        loops++;
        let outer = entry.parent === null ? undefined : byId.get(entry.parent);
        while (outer && !drivenBy(outer, name)) outer = outer.parent === null ? undefined : byId.get(outer.parent);
        if (!outer) instructions += entry.inclusiveInstructions;
      }
      return { name, instructions, share: total > 0 ? instructions / total : 0, loops };
    })
    .sort((a, b) => b.instructions - a.instructions || candidates.indexOf(a.name) - candidates.indexOf(b.name));
}

/** The config's parameters when it names them, else the (at most `max`) reaching the most work. */
export function chooseParameters(
  work: ReturnType<typeof workPerParameter>,
  named: readonly string[] | null,
  max: number,
): ParameterWork[] {
  let rank = 0;
  return work.map((entry) => {
    if (named) {
      const chosen = named.includes(entry.name);
      return { ...entry, chosen, why: chosen ? 'named by the config' : 'not named by the config' };
    }
    if (entry.instructions === 0) return { ...entry, chosen: false, why: 'drives no loop: prunable' };
    rank++;
    const chosen = rank <= max;
    return {
      ...entry,
      chosen,
      why: chosen ? `reaches the most work (#${rank})` : `only #${rank}: at most ${max} proposed`,
    };
  });
}

/** Values of a proposed parameter: its base value times each multiplier, whole and distinct. */
export function proposedValues(base: number, scale: readonly number[]): number[] {
  const values = [...new Set(scale.map((s) => Math.max(1, Math.round(base * s))))].sort((a, b) => a - b);
  if (values.length >= Math.min(scale.length, 3)) return values;
  return scale.map((_, i) => Math.max(1, Math.round(base)) + i);
}
