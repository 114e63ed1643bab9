import { scrub } from '../../secrets.js';
import { statusPageAccess } from '../../status/access.js';
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
  options: { port: number; storeOpen: () => boolean; instance: string },
): Promise<HealthServer> {
  const { config, store, clock, logger, metrics } = ctx;
  const { storeOpen } = options;
  const http = await startHealthServer({
    port: options.port,
    host: config.http.host,
    registry: metrics.registry,
    logger,
    extra: statusRoutes({ config, store, clock, logger, storeOpen }),
    readyDetail: async () => clusterLines(await collectCluster(store, clock.now()), options.instance),
    async notReadyReason() {
      if (!storeOpen()) return 'store closed';
      const problem = ctx.storeProblem();
      if (problem) return problem;
      const last = await lastFinishedSyncRun(store);
      if (!last) return 'no sync pass has finished yet';
      // Scrubbed again on the way out: a row written before error text was scrubbed at the store.
      if (last.outcome === 'failed') return `last sync failed: ${scrub(last.error ?? 'unknown error')}`;
      return undefined;
    },
  });
  const page = statusPageAccess(config.http);
  logger.info({ url: http.url }, 'http listening (/healthz /readyz /metrics)');
  if (page.mode === 'off') logger.warn(page.reason);
  return http;
}
