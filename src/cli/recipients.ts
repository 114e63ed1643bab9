import type { Command } from 'commander';
import { UsageError } from '../errors/index.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd recipients REPORT`: who gets what from a report's recipient table, read from the config
 * alone (no store, nothing sent): one line per row with its place in the table, the reader, the slice,
 * locale, theme, formats, the next send time in the reader's zone, and the render it shares.
 */
export function register(program: Command): void {
  program
    .command('recipients')
    .summary("list who gets what from a report's recipient table")
    .description(
      "Prints one line per row of the report's recipient table: where it is written, the reader, their slice " +
        '(account: query sets), locale, theme, formats, the next send time in their own zone, and the render ' +
        'it shares (rows with the same slice, locale, theme, formats and paper share one document); then how ' +
        'many renders a slot makes. Reads only the config.',
    )
    .argument('<report>', 'the name of a report with recipients')
    .addOption(configOption)
    .action(async (name: string, options: ConfigOptions) => {
      // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
      const [{ loadConfig }, { recipientLines }] = await Promise.all([
        import('../config/load.js'),
        import('./recipient-lines.js'),
      ]);
      const config = loadConfig(options.config);
      const report = config.reports.find((r) => r.name === name);
      if (!report) throw new UsageError(`no report named "${name}" in ${options.config}`);
      if (!report.recipients) throw new UsageError(`report "${name}" has no recipients`);
      process.stdout.write(recipientLines(report, report.recipients, Date.now()).join('\n') + '\n');
    });
}
