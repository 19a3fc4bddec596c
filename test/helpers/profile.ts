// Test helpers: profile a module in-process the way `taintlens loops` does.
import { profileLoops } from '../../src/profile/profile-run.js';
import type { RunSettings } from '../../src/runtime/run-settings.js';
import { runModule } from '../../src/runtime/run.js';

export function runOptions(args: Array<number | string>, overrides: Partial<RunSettings> = {}): RunSettings {
  return { invoke: 'run', args: args.map(String), argv: [], repeat: 1, timeoutMs: 20_000, ...overrides };
}

export function profile(bytes: Uint8Array, args: Array<number | string>, overrides: Partial<RunSettings> = {}) {
  return profileLoops('fixture.wasm', bytes, runOptions(args, overrides));
}

export async function plainResult(bytes: Uint8Array, args: Array<number | string>, invoke = 'run') {
  const outcome = await runModule({ file: 'fixture.wasm', bytes, invoke, args: args.map(String), timeoutMs: 20_000 });
  return outcome.repetitions[0]!.result;
}
