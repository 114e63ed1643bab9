import { Command } from 'commander';
import { VERSION } from '../version.js';

/**
 * The root `reportd` command, without its subcommands (registerCommands adds them). One definition for
 * the CLI (main.ts) and for the CLI reference generated from it (reference.ts), so `reportd --help` and
 * docs/reference/cli.md cannot describe two different programs.
 */
export function createProgram(): Command {
  return new Command()
    .name('reportd')
    .description('Syncs AI answer-engine reporting into SQLite snapshots and renders PDF and Excel reports.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
}
