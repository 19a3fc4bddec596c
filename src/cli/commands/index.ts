// Every subcommand registers itself on the program; add new commands here, one line each.
import type { Command } from 'commander';
import { registerRun } from './run.js';
import { registerInstrument } from './instrument.js';
import { registerLoops } from './loops.js';
import { registerMeasure } from './measure.js';
import { registerExperiment } from './experiment.js';
import { registerOverhead } from './overhead.js';
import { registerAnalyze } from './analyze.js';

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [
  registerRun,
  registerInstrument,
  registerLoops,
  registerMeasure,
  registerExperiment,
  registerOverhead,
  registerAnalyze,
  (await import('./model.js')).registerModel,
  (await import('./taint.js')).registerTaint,
  (await import('../../fuzz/command.js')).registerFuzz,
  (await import('./blame.js')).registerBlame,
];
