import { scrub } from '../../secrets.js';
import { accessRefusal, statusPageAccess } from '../../status/access.js';
import { clusterLines, collectCluster } from '../../status/cluster.js';
import { statusRoutes } from '../../status/routes.js';
import { lastFinishedSyncRun } from '../../store/sync-runs.js';
import { type HealthServer, startHealthServer } from '../http.js';
import type { RoleContext } from './context.js';

/**
 * The http role: the status page, /healthz, /readyz and /metrics on `http.port`. Ready means the
 * store is open and usable and the last sync pass (of whichever process ran it) did not fail.
 * Rejects when it cannot listen; the composer undoes what it started and says so in one line.
 */
export async function startHttpRole(
  ctx: RoleContext,
  /** `instance`: this daemon's id, marked in `/readyz?verbose`'s list of instances. */
  options: {
    port: number;
    storeOpen: () => boolean;
    instance: string;
    /** A write to the store (this instance's heartbeat); rejects when the store takes none. */
    storeWritable: () => Promise<void>;
  },
): Promise<HealthServer> {
  const { config, store, clock, logger, metrics } = ctx;
  const { storeOpen } = options;
  const page = statusPageAccess(config.http);
  const http = await startHealthServer({
    port: options.port,
    host: config.http.host,
    allowedHosts: config.http.allowed_hosts,
    registry: metrics.registry,
    logger,
    extra: statusRoutes({ config, store, clock, logger, storeOpen }),
    detailRefusal: (req) => accessRefusal(page, req),
    readyDetail: async () => clusterLines(await collectCluster(store, clock.now()), options.instance),
    async notReadyReason() {
      if (!storeOpen()) return 'store closed';
      const problem = ctx.storeProblem();
      if (problem) return problem;
      const unwritable = await writeProblem(options.storeWritable);
      if (unwritable) return unwritable;
      const down = ctx.health.problem();
      if (down) return down;
      const last = await lastFinishedSyncRun(store);
      if (!last) return 'no sync pass has finished yet';
      // Scrubbed again on the way out: a row written before error text was scrubbed at the store.
      if (last.outcome === 'failed') return `last sync failed: ${scrub(last.error ?? 'unknown error')}`;
      return undefined;
    },
  });
  logger.info({ url: http.url }, 'http listening (/healthz /readyz /metrics)');
  if (page.mode === 'off') logger.warn(page.reason);
  return http;
}

/** How long /readyz waits for its store write: probes time out in a few seconds themselves. */
const WRITE_PROBE_MS = 3_000;

/** Why the store took no write within `WRITE_PROBE_MS`, or undefined when it did. */
async function writeProblem(write: () => Promise<void>): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`store cannot be written: no answer in ${WRITE_PROBE_MS / 1000} s`),
      WRITE_PROBE_MS,
    );
  });
  try {
    return await Promise.race([
      write().then(
        () => undefined,
        (error: Error) => `store cannot be written: ${scrub(error.message.split('\n')[0] ?? '')}`,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
