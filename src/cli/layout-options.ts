// `--wide` and the table layout it gives: tables fit the output width (report/terminal.ts) and
// shorten call paths from the left, unless --wide keeps every cell whole.
import type { Command } from 'commander';
import { outputWidth } from '../report/terminal.js';

export interface LayoutCliOptions {
  wide?: boolean;
}

export function addWideOption(command: Command): Command {
  return command.option('--wide', 'do not shorten call paths or fit the tables to the terminal width');
}

/** The layout every table of a command gets; `width` is Infinity when wide. */
export function tableLayout(options: LayoutCliOptions): { wide: boolean; width: number } {
  return options.wide === true ? { wide: true, width: Infinity } : { wide: false, width: outputWidth() };
}
