// Every subcommand registers itself on the program; add new commands here, one line each.
import type { Command } from 'commander';

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [];
