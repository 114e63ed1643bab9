import type { Command } from 'commander';

/**
 * One file per command; each exports `register(program)`. Commands are thin: they load the config
 * and call the modules that do the work.
 */
type Register = (program: Command) => void;

const commands: Register[] = [];

export function registerCommands(program: Command): void {
  for (const register of commands) register(program);
}
