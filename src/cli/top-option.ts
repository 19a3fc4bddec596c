// `--top N` of the loops and taint tables: tables of big programs run to 100k lines, so by
// default only the N rows that matter most are shown (`--all` drops the default).
import { UserError } from '../util/errors.js';

export const DEFAULT_TOP = 40;

export function parseTopCount(text: string): number {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !(value >= 1))
    throw new UserError(`--top: "${text}" is not a positive whole number`, 2);
  return value;
}

/** The --top in force: the one given, else none with --all, else the default. */
export function topInForce(options: { top?: number; all?: boolean }): number | undefined {
  return options.top ?? (options.all ? undefined : DEFAULT_TOP);
}
