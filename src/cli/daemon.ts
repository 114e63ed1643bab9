import type { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { startDaemon } from '../daemon/daemon.js';
import { createLogger } from '../log.js';
import { type ConfigOptions, configOption } from './options.js';

/** Shutdown must finish within this; past it the process exits anyway (Docker's default grace is 10 s). */
const SHUTDOWN_LIMIT_MS = 9_500;

/**
 * `reportd daemon`: sync on `sync.schedule`, email reports on their schedules and triggers, serve
 * /healthz /readyz /metrics when `http.port` is set. Runs until SIGTERM or SIGINT, then stops cleanly:
 * the sync pass in hand is aborted between payload commits, an SMTP exchange in flight may finish,
 * Chromium is closed, the listener stops.
 */
export function register(program: Command): void {
  program
    .command('daemon')
    .description('run continuously: sync on schedule, email due reports, serve health and metrics')
    .addOption(configOption)
    .action(async (flags: ConfigOptions) => {
      const config = loadConfig(flags.config);
      const logger = createLogger({ level: config.log.level });
      const daemon = await startDaemon({ config, logger });
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          logger.info({ signal }, 'shutdown requested');
          setTimeout(() => {
            logger.error('shutdown did not finish in time; exiting');
            process.exit(1);
          }, SHUTDOWN_LIMIT_MS).unref();
          daemon.close().then(resolve, resolve);
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
    });
}
