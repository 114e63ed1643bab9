import type { Command } from 'commander';
import type { CheckOptions } from './check-run.js';
import { configOption } from './options.js';

/**
 * `reportd check`: validates the config and prints it as reportd will use it (defaults filled in,
 * paths absolute, secrets masked), then the next three fire times of the sync and of every report (as
 * YAML comments). An invalid config ends with every problem listed, exit code 2.
 */
export function register(program: Command): void {
  program
    .command('check')
    .summary('validate the config file and print it resolved, with secrets masked')
    .description(
      'Validates the config and prints it as reportd will use it: defaults filled in, paths absolute, ' +
        'secrets masked; then, as YAML comments, the next three fire times of the sync and of every report ' +
        '(paused ones say so). Warns in one line when the status page is off (http.port set on an address ' +
        'other than loopback without http.auth), and for each theme colour that falls short of WCAG AA contrast ' +
        'with the text drawn on it. Every problem of an invalid config is listed at once (exit 2).',
    )
    .addOption(configOption)
    .option(
      '--destinations',
      'instead of printing the config: write a small probe object to each storage channel (s3, sftp, folder) and remove it; one line each, exit 1 when any fails',
    )
    .action(async (options: CheckOptions) => {
      // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
      // One module holding all that check runs: one chunk of the bundle to find and load where eight
      // separate imports made it load many small ones.
      const { runCheck } = await import('./check-run.js');
      // bin/reportd.js had V8 compile check's files whole as they loaded, for its compile cache to
      // keep: what loads from here on (Node's own modules among them) compiles as it normally does.
      // Its young-generation growth factor goes back to V8's default too (2), as it is part of the
      // flags that tag cached code; the space it grew to stays for the rest of the run.
      process.getBuiltinModule('node:v8').setFlagsFromString('--lazy --semi-space-growth-factor=2');
      await runCheck(options);
    });
}
