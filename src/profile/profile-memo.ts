// One loop profile per run configuration: a walk that needs the profile of a point in several
// steps (`analyze`: the taint step's base point, the campaign's points, the overhead comparison's
// points and its default-mode selection) runs the profiler once per point and shares the result.
import { profileLoops, type LoopProfileReport } from './profile-run.js';

/** Runs the loop profiler on an uninstrumented module (profileLoops' signature, default instrumentation). */
export type LoopProfiler = (
  file: string,
  bytes: Uint8Array,
  run: Parameters<typeof profileLoops>[2],
  instrument?: Parameters<typeof profileLoops>[3],
) => Promise<LoopProfileReport>;

export interface SharedProfiler extends LoopProfiler {
  /** Profiler runs started so far (calls answered from an earlier run are not counted). */
  readonly runs: number;
}

/**
 * A profiler that remembers each run by what determines its counts (module, export, arguments,
 * argv, ranks, WASI extras, repetitions); a failed run is forgotten, so a retry runs again.
 */
export function sharedProfiler(profile: LoopProfiler = profileLoops): SharedProfiler {
  const done = new Map<string, Promise<LoopProfileReport>>();
  let runs = 0;
  const shared = (
    file: string,
    bytes: Uint8Array,
    run: Parameters<LoopProfiler>[2],
    instrument: Parameters<LoopProfiler>[3] = {},
  ) => {
    const key = JSON.stringify([
      file,
      bytes.length,
      run.invoke,
      run.args,
      run.argv,
      run.ranks ?? null,
      run.repeat,
      run.wasi ?? null,
      run.timeoutMs,
      instrument,
    ]);
    const known = done.get(key);
    if (known) return known;
    runs++;
    const started = profile(file, bytes, run, instrument);
    done.set(key, started);
    started.catch(() => done.delete(key));
    return started;
  };
  return Object.defineProperty(shared, 'runs', { get: () => runs }) as SharedProfiler;
}
