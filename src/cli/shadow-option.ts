// The --shadow option of every command that runs the taint analysis (taint, analyze): shadow
// memory granularity, by default chosen from what is marked (src/taint/analyze.ts).
import type { Command } from 'commander';
import { SHADOW_GRANULARITIES, type ShadowGranularity } from '../../instrument/passes/shadow-placement.js';
import { UserError } from '../util/errors.js';

export const SHADOW_OPTION_HELP =
  'shadow memory: word (one label per 4-byte word, fast), byte (one per byte, exact for narrow stores and short inputs), or auto: byte when argv, environment or file bytes are marked, else word';

export function addShadowOption(command: Command): Command {
  return command.option('--shadow <granularity>', SHADOW_OPTION_HELP, 'auto');
}

/** The granularity a --shadow value asks for; undefined for auto. */
export function parseShadowOption(text: string): ShadowGranularity | undefined {
  if (text === 'auto') return undefined;
  const found = SHADOW_GRANULARITIES.find((g) => g === text);
  if (!found) throw new UserError(`--shadow must be ${[...SHADOW_GRANULARITIES, 'auto'].join(', ')}, got '${text}'`, 2);
  return found;
}
