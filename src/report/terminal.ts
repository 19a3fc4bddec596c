// How wide tables may be: the terminal's width when stdout is one, else a width that reads well in
// a log or an editor (tables in files are for people too; --wide keeps everything whole). Prose is
// wrapped on a terminal only: in a file or a pipe one statement stays on one line, for grep.

export const DEFAULT_WIDTH = 100;

export function outputWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : DEFAULT_WIDTH;
}

/** The width prose lines are wrapped to: the terminal's, or none when stdout is not a terminal. */
export function proseWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stream.isTTY === true ? outputWidth(stream) : Infinity;
}
