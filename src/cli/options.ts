import { Option } from 'commander';

/**
 * `--config <file>`, shared by every command that reads the config. Falls back to $REPORTD_CONFIG,
 * then ./reportd.yaml. An Option holds no parse state, so one instance can be added to many
 * commands: `command.addOption(configOption)`, then read `options.config`.
 */
export const configOption: Option = new Option('--config <file>', 'config file (YAML)')
  .env('REPORTD_CONFIG')
  .default('./reportd.yaml');

/** The options object of a command that added `configOption`. */
export interface ConfigOptions {
  config: string;
}

/**
 * `--allowed-host <name>` (repeatable) of the studio and `mcp --http`: a name besides the listen
 * address that requests may give as Host, added to the config's `http.allowed_hosts` (a proxy's name).
 */
export const allowedHostOption: Option = new Option(
  '--allowed-host <name>',
  'a name besides the listen address that requests may give as Host (a proxy in front); repeatable',
)
  .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
  .default([]);
