import type { Command } from 'commander';

/**
 * One file per command; each exports `register(program)`. Commands are thin: they load the config
 * and call the modules that do the work.
 *
 * Only the command being run is registered, and a command's file declares it (name, options, help)
 * without loading what it runs: its action imports its dependencies (the daemon's HTTP server and
 * mailer, sync's HTTP client, the store…) when it runs. Help, a mistyped command or no command at all
 * registers every one, in this order, so `--help` lists them all and commander can suggest the right
 * name, and still loads none of their work; `--version` registers none. That keeps `reportd --version`
 * and `--help` near Node's own start-up (cron jobs, editors and assistants spawn them often).
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
  recipients: () => import('./recipients.js'),
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
  if (name === '--version' || name === '-V') return;
  const wanted = name !== undefined && Object.hasOwn(commands, name) ? [name] : Object.keys(commands);
  const modules = await Promise.all(wanted.map((command) => commands[command]!()));
  for (const { register } of modules) register(program);
}
