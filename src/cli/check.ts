import type { Command } from 'commander';
import { stringify } from 'yaml';
import { loadConfig } from '../config/load.js';
import { maskedConfig } from '../config/mask.js';
import { pathIssues } from '../config/path-checks.js';
import { ConfigError } from '../errors/index.js';
import { scrub } from '../secrets.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd check`: validates the config and prints it as reportd will use it (defaults filled in,
 * paths absolute, secrets masked). An invalid config ends with every problem listed, exit code 2.
 */
export function register(program: Command): void {
  program
    .command('check')
    .description('validate the config file and print it resolved, with secrets masked')
    .addOption(configOption)
    .action((options: ConfigOptions) => {
      const config = loadConfig(options.config);
      const problems = pathIssues(config);
      if (problems.length > 0) throw new ConfigError(options.config, problems);
      // Masked by field, then scrubbed by value in case a secret was also pasted into another field.
      const text = scrub(stringify(maskedConfig(config), { lineWidth: 0 }));
      process.stdout.write(`# ${options.config}: valid\n${text}`);
    });
}
