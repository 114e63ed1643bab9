import type { Command } from 'commander';

/**
 * One file per command; each exports `register(program)`. Commands are thin: they load the config
 * and call the modules that do the work.
 *
 * Only the command being run is loaded: each command's file pulls in its own dependencies (the
 * daemon's HTTP server and mailer, sync's HTTP client…), and loading all of them cost a cold
 * `reportd render` a third of its start-up. Help, a mistyped command or no command at all loads
 * every one, in this order, so `--help` lists them all and commander can suggest the right name.
 */
type Register = (program: Command) => void;

const commands: Record<string, () => Promise<{ register: Register }>> = {
  alerts: () => import('./alerts.js'),
  check: () => import('./check.js'),
  daemon: () => import('./daemon.js'),
  deliver: () => import('./deliver.js'),
  demo: () => import('./demo.js'),
  export: () => import('./export.js'),
  history: () => import('./history.js'),
  mcp: () => import('./mcp.js'),
  'migrate-store': () => import('./migrate-store.js'),
  render: () => import('./render.js'),
  sandbox: () => import('./sandbox.js'),
  status: () => import('./status.js'),
  studio: () => import('./studio.js'),
  sync: () => import('./sync.js'),
  templates: () => import('./templates.js'),
};

/** Registers the command named by `args` (the words after `reportd`), or every command. */
export async function registerCommands(program: Command, args: readonly string[]): Promise<void> {
  const name = args[0];
  const wanted = name !== undefined && Object.hasOwn(commands, name) ? [name] : Object.keys(commands);
  const modules = await Promise.all(wanted.map((command) => commands[command]!()));
  for (const { register } of modules) register(program);
}
