import type { Command } from 'commander';
import { register as alerts } from './alerts.js';
import { register as check } from './check.js';
import { register as daemon } from './daemon.js';
import { register as deliver } from './deliver.js';
import { register as demo } from './demo.js';
import { register as exportCommand } from './export.js';
import { register as history } from './history.js';
import { register as migrateStore } from './migrate-store.js';
import { register as render } from './render.js';
import { register as sandbox } from './sandbox.js';
import { register as status } from './status.js';
import { register as sync } from './sync.js';

/**
 * One file per command; each exports `register(program)`. Commands are thin: they load the config
 * and call the modules that do the work.
 */
type Register = (program: Command) => void;

const commands: Register[] = [
  alerts,
  check,
  daemon,
  deliver,
  demo,
  exportCommand,
  history,
  migrateStore,
  render,
  sandbox,
  status,
  sync,
];

export function registerCommands(program: Command): void {
  for (const register of commands) register(program);
}
