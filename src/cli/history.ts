import type { Command } from 'commander';
// Type only (erased): the command's body is loaded when it runs, not when it is declared.
import type { HistoryFlags } from './history-show.js';
import { configOption } from './options.js';

/** `reportd history`: recent sync passes and deliveries with their states (`--json` for scripts). */
export function register(program: Command): void {
  program
    .command('history')
    .summary('show recent sync passes and report deliveries with their states')
    .description(
      "Recent sync passes and deliveries, one per destination (`email` or the channel's name: state, " +
        "attempts, last error, and per recipient: got it, deferred or refused with the server's reply), each " +
        "report's state (active, paused, scheduled, ended), slots skipped for `max_delay` and runs left unsent by `require_likely_change`, each slot claimed " +
        '(job, slot, reason, outcome, the instance that ran it), the instances, and failure incidents with ' +
        'their notices.',
    )
    .addOption(configOption)
    .option('--json', "print JSON instead of a table; adds the scheduler's jobs (last slot, outcome, error)")
    .option('--limit <n>', 'rows of each kind, 1 to 10000', '20')
    .option('--files', 'list the delivered files instead: hash, size, destination, reader, time')
    .option(
      '--reader <reader>',
      "only what this reader got (an address or a channel's name; a recipient table's reader by either): their deliveries, or with --files their files",
    )
    .option('--report <name>', "only this report's deliveries")
    .option('--date <yyyy-mm-dd>', 'with --files: only what was delivered on this day (UTC)')
    // Loaded when run, not declared: `reportd --help` declares every command and must not load them.
    .action(async (flags: HistoryFlags) => (await import('./history-show.js')).showHistory(flags));
}
