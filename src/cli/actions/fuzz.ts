// `taintlens fuzz`'s action: the differential fuzzing campaign (src/fuzz/cli.ts); its exit code is
// the command's.
import { fuzzCommand, type FuzzCliOptions } from '../../fuzz/cli.js';

export async function fuzzAction(options: FuzzCliOptions): Promise<void> {
  process.exitCode = await fuzzCommand(options);
}
