import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import { scrub } from '../secrets.js';
import { type Daemon, type DaemonOptions, startDaemon } from './daemon.js';
import { shutdownGraceMs } from './shutdown.js';

/**
 * The daemon as one process: the signals it answers and every way out of it.
 * - SIGTERM, SIGINT: stop cleanly (the daemon's `close`), exit 0; past the SMTP grace plus a margin,
 *   exit 1 anyway.
 * - SIGHUP: read the config again. A config that does not load (YAML, schema, secrets) is refused in
 *   one line and the running one kept; a valid one replaces it: the roles stop as on SIGTERM (a
 *   render or sync in hand is handed back, an SMTP exchange in flight gets its answer) and start again
 *   at once on the new config, whose first slot, sync and delivery are the next ones. Slots that came
 *   during the swap are missed slots (run once). Should the new config not start (its port taken), the
 *   old one is started again.
 * - A fatal error (an exception nothing caught): one line, the instance marked stopped, exit 1.
 * Every way out marks the instance stopped, so `status` never lists a gone process as live.
 */

/** Past the SMTP grace plus this, shutdown exits anyway: Chromium, the listener and the store close well within it. */
const SHUTDOWN_MARGIN_MS = 4_500;
/** A fatal error's stop waits this long for the instance row to be marked, then exits anyway. */
const FATAL_MARK_MS = 3_000;

export interface DaemonProcessOptions extends Omit<DaemonOptions, 'config'> {
  config: Config;
  logger: Logger;
  /** Reads and validates the config file again (SIGHUP); throws what `loadConfig` throws. */
  reloadConfig: () => Config;
}

/** Runs until SIGTERM or SIGINT (or a fatal error, which exits the process). */
export async function runDaemonProcess(options: DaemonProcessOptions): Promise<void> {
  const { logger, reloadConfig, ...rest } = options;
  let config = options.config;
  let daemon: Daemon = await startDaemon({ ...rest, config, logger });
  let reloading: Promise<void> = Promise.resolve();
  let stopping = false;

  const reload = async () => {
    let next: Config;
    try {
      next = reloadConfig();
    } catch (error) {
      logger.error(`config reload refused, the running config is kept: ${oneLine(error)}`);
      return;
    }
    if (stopping) return;
    logger.info('config reloaded; restarting the roles on it');
    await daemon.close();
    if (stopping) return;
    try {
      daemon = await startDaemon({ ...rest, config: next, logger });
      config = next;
    } catch (error) {
      logger.error(`the reloaded config did not start, the previous one is started again: ${oneLine(error)}`);
      daemon = await startDaemon({ ...rest, config, logger });
    }
  };

  const fatal = (error: unknown) => {
    logger.fatal({ err: error }, `fatal error, exiting: ${oneLine(error)}`);
    setTimeout(() => process.exit(1), FATAL_MARK_MS).unref();
    daemon.instance.close().finally(() => process.exit(1));
  };

  await new Promise<void>((resolve) => {
    const onHup = () => {
      reloading = reloading.then(reload).catch(fatal);
    };
    const stop = (signal: NodeJS.Signals) => {
      stopping = true;
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      logger.info({ signal }, 'shutdown requested');
      setTimeout(() => {
        logger.error('shutdown did not finish in time; exiting');
        daemon.instance.close().finally(() => process.exit(1));
      }, shutdownGraceMs({ config }) + SHUTDOWN_MARGIN_MS).unref();
      // A reload under way finishes first, so the daemon it starts is the one closed.
      reloading
        .then(() => daemon.close())
        .then(() => {
          process.off('SIGHUP', onHup);
          process.off('uncaughtException', fatal);
          process.off('unhandledRejection', fatal);
          resolve();
        }, resolve);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.on('SIGHUP', onHup);
    process.on('uncaughtException', fatal);
    process.on('unhandledRejection', fatal);
  });
}

/** An error as one line, secrets scrubbed (a config error lists every problem: joined with "; "). */
function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return scrub(
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join('; '),
  );
}
