import { Command, CommanderError } from 'commander';
import { ReportdError } from '../errors/index.js';
import { systemErrorLine } from '../errors/system-error.js';
import { scrub } from '../secrets.js';
import { registerCommands } from './commands.js';
import { VERSION } from './version.js';

const program = new Command()
  .name('reportd')
  .description('Syncs AI answer-engine reporting into SQLite snapshots and renders PDF and Excel reports.')
  .version(VERSION)
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportFailure(error);
}

/** User mistakes and API refusals are one line; only bugs get a stack trace. */
function reportFailure(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed help, the version or its own usage message.
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof ReportdError) {
    process.stderr.write(`reportd: ${scrub(error.message)}\n`);
    return error.exitCode;
  }
  const system = systemErrorLine(error);
  if (system) {
    process.stderr.write(`reportd: ${scrub(system)}\n`);
    return 1;
  }
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`reportd: unexpected error (a bug, please report it):\n${scrub(text)}\n`);
  return 70;
}
