// Which of the functions a first run entered the taint pass may instrument without optimizing
// (`TaintOptions.cold`): the same analysis and shadow code, without the label cleanup, the hoisting
// of loop-invariant joins, alignment versioning and Binaryen's optimizer, which cost the pass
// most of its time per function and only buy run time where code runs often. Leaving a function's shadow code unoptimized saves
// instrumentation time in proportion to its size and costs run time in proportion to the work it
// does; so, as in a fractional knapsack, functions are taken by increasing work per instruction
// (how often, on average, each of their instructions ran) until their work together reaches a
// small share of the run's. A function entered once can hold the hot loop: its loop iterations
// count as work (entry-work.ts), so it is not taken.

/** At most this share of the first run's work (its coarse instruction count) runs in cold functions. */
export const COLD_WORK_SHARE = 0.02;

/**
 * The cold functions among those with work recorded, sorted by name. `instructions` gives each
 * function's static size (the site table's count); functions missing from it are never cold.
 */
export function coldFunctions(
  work: ReadonlyMap<string, number>,
  instructions: ReadonlyMap<string, number>,
  share = COLD_WORK_SHARE,
): string[] {
  let total = 0;
  for (const count of work.values()) total += count;
  const budget = total * share;
  const candidates = [...work]
    .filter(([name]) => instructions.has(name))
    .map(([name, count]) => ({ name, count, density: count / Math.max(instructions.get(name)!, 1) }))
    .sort((a, b) => a.density - b.density || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const cold: string[] = [];
  let spent = 0;
  for (const c of candidates) {
    if (spent + c.count > budget) break;
    spent += c.count;
    cold.push(c.name);
  }
  return cold.sort();
}
