// How wide tables may be: the terminal's width when stdout is one, else a width that reads well in
// a log or an editor (tables in files are for people too; --wide keeps everything whole).

export const DEFAULT_WIDTH = 100;

export function outputWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : DEFAULT_WIDTH;
}
