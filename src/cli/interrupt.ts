// Ctrl-C during a long command (measure, experiment, analyze): instead of stopping silently, say
// what was kept and how to resume, and exit 130 as a shell expects of an interrupted command.
// Results are written whole (atomic writes, one append per point), so whatever is on disk when the
// signal arrives is complete.

/** Exit code of a command stopped by SIGINT (128 + 2). */
export const INTERRUPTED_EXIT_CODE = 130;

/** Runs `work`; a SIGINT meanwhile prints `taintlens: interrupted: <kept()>` and exits 130. */
export async function interruptible<T>(kept: () => string, work: () => Promise<T>): Promise<T> {
  const stop = () => {
    let said: string;
    try {
      said = kept();
    } catch {
      said = 'what was written so far is kept; run the same command again to resume';
    }
    process.stderr.write(`\ntaintlens: interrupted: ${said}\n`);
    process.exit(INTERRUPTED_EXIT_CODE);
  };
  process.once('SIGINT', stop);
  try {
    return await work();
  } finally {
    process.off('SIGINT', stop);
  }
}

/** What a campaign keeps: its whole points, and the command that measures the rest. */
export function keptCampaign(points: number, file: string): string {
  return `${points} point(s) kept in ${file}; run the same command again to measure the rest`;
}
