import { CommanderError } from 'commander';
import { registerCommands } from './commands.js';
import { createProgram } from './program.js';

const program = createProgram();

try {
  await registerCommands(program, process.argv.slice(2));
  await program.parseAsync(process.argv);
} catch (error) {
  // Commander already printed help, the version or its own usage message.
  if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? 0 : 2;
  else {
    // Loaded on failure only: a command that succeeds does not pay for it.
    const { reportFailure } = await import('./failure.js');
    process.exitCode = reportFailure(error);
  }
}
