// How wide output may be, and how JSON is laid out, decided in one place for every command.
// Width: COLUMNS when set (a user's explicit choice), else the terminal's width when stdout is one,
// else a width that reads well in a log or an editor (tables in files are for people too; --wide
// keeps everything whole). Prose is wrapped on a terminal only: in a file or a pipe one statement
// stays on one line, for grep. JSON is indented for a person at a terminal and one line otherwise,
// so `--json | head -1` is a whole document (the content is the same either way).

export const DEFAULT_WIDTH = 100;

interface Stream {
  isTTY?: boolean;
  columns?: number;
}

/** A positive whole number of columns from the environment's COLUMNS, if it holds one. */
function columnsFromEnvironment(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.COLUMNS?.trim();
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const columns = Number(text);
  return columns > 0 ? columns : undefined;
}

export function outputWidth(stream: Stream = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  const fromEnvironment = columnsFromEnvironment(env);
  if (fromEnvironment !== undefined) return fromEnvironment;
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0
    ? stream.columns
    : DEFAULT_WIDTH;
}

/** The width prose lines are wrapped to: the terminal's, or none when stdout is not a terminal. */
export function proseWidth(stream: Stream = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  return stream.isTTY === true ? outputWidth(stream, env) : Infinity;
}

/** A JSON document as text: indented on a terminal, one line otherwise (no trailing newline). */
export function jsonText(document: unknown, stream: Stream = process.stdout): string {
  return stream.isTTY === true ? JSON.stringify(document, null, 2) : JSON.stringify(document);
}
