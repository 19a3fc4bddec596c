// A WASI program's own output in every command's output: as it printed it (stdout to stdout, stderr
// to stderr, before the report) in text, and as `stdout`/`stderr` fields of the JSON document.
import type { GuestStreams } from '../runtime/guest-output.js';

/** Writes the program's output as it printed it; nothing with --json (it is in the document). */
export function passGuestStreams(json: boolean, output: GuestStreams): void {
  if (json) return;
  if (output.stdout) process.stdout.write(output.stdout);
  if (output.stderr) process.stderr.write(output.stderr);
}
