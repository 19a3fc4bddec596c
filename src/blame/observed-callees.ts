// The functions a call site was seen calling: the static callee of a direct call, else (an indirect
// call: C++ virtual calls, function pointers, std::function) every callee the run's sampled call
// paths and allocation paths entered from that site. Blame follows a value passed to a call into
// these callees (attribute.ts), so an indirect call need not end in "callee argument".
import type { AllocationEvent, Sample, SampledRun } from './sample-run.js';
import type { SampleLayout } from '../../instrument/passes/sample.js';

export type CalleesAt = (fn: number, call: number) => readonly number[];

export function observedCallees(
  layout: SampleLayout,
  samples: Pick<SampledRun, 'forEachSample'>,
  allocations: readonly AllocationEvent[],
): CalleesAt {
  const seen = new Map<string, Set<number>>();
  // Samples on one call path share its array: each path is looked at once.
  const noted = new Set<Sample['path']>();
  const note = (path: Sample['path']) => {
    if (noted.has(path)) return;
    noted.add(path);
    for (let j = 1; j < path.length; j++) {
      const frame = path[j]!;
      if (frame.call === null) continue;
      const key = `${path[j - 1]!.function}:${frame.call}`;
      let set = seen.get(key);
      if (!set) seen.set(key, (set = new Set()));
      set.add(frame.function);
    }
  };
  samples.forEachSample((sample) => note(sample.path));
  for (const event of allocations) note(event.path);
  const none: number[] = [];
  const lists = new Map<string, number[]>();
  return (fn, call) => {
    const known = layout.functions[fn]?.callees[call];
    if (known !== null && known !== undefined) return [known];
    const key = `${fn}:${call}`;
    let list = lists.get(key);
    if (!list) lists.set(key, (list = [...(seen.get(key) ?? none)].sort((a, b) => a - b)));
    return list;
  };
}
