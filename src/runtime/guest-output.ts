// How a failed WASI program's own output is shown under the one-line error: its stderr (or, when
// it wrote none, its stdout), indented and marked so it cannot be taken for Taintlens' words; and
// the non-empty streams of a run, as every JSON document carries them.
import type { GuestOutput } from './protocol.js';

const MAX_LINES = 20;

/** `; its stderr:\n  | usage: ...` — or a note that it printed nothing. */
export function describeGuestOutput(output: GuestOutput | undefined): string {
  if (!output) return '';
  const [stream, text] = output.stderr.trim()
    ? ['stderr', output.stderr]
    : output.stdout.trim()
      ? ['stdout (no stderr)', output.stdout]
      : [null, ''];
  if (stream === null) return ' (it printed nothing)';
  const lines = text.replace(/\s+$/, '').split('\n');
  const shown =
    lines.length > MAX_LINES ? [`... ${lines.length - MAX_LINES} earlier line(s)`, ...lines.slice(-MAX_LINES)] : lines;
  return `; its ${stream}:\n${shown.map((line) => `  | ${line}`).join('\n')}`;
}

export interface GuestStreams {
  stdout?: string;
  stderr?: string;
}

/** The non-empty streams, for a JSON document. */
export function guestStreams(output: { stdout: string; stderr: string }): GuestStreams {
  return { ...(output.stdout ? { stdout: output.stdout } : {}), ...(output.stderr ? { stderr: output.stderr } : {}) };
}
