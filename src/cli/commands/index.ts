// Every subcommand registers itself on the program; add new commands here, one line each.
// Registering declares a command's name and options only; its action module (src/cli/actions/)
// is imported when the command is chosen.
import type { Command } from 'commander';
import { registerRun } from './run.js';
import { registerInstrument } from './instrument.js';
import { registerLoops } from './loops.js';
import { registerMeasure } from './measure.js';
import { registerExperiment } from './experiment.js';
import { registerOverhead } from './overhead.js';
import { registerAnalyze } from './analyze.js';
import { registerModel } from './model.js';
import { registerTaint } from './taint.js';
import { registerFuzz } from './fuzz.js';
import { registerBlame } from './blame.js';

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [
  registerRun,
  registerInstrument,
  registerLoops,
  registerMeasure,
  registerExperiment,
  registerOverhead,
  registerAnalyze,
  registerModel,
  registerTaint,
  registerFuzz,
  registerBlame,
];
