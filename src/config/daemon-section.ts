import { z } from 'zod';

/**
 * What one daemon process does (daemon/roles/): every process runs all four by default; on a store
 * shared by several processes (PostgreSQL) each may run a subset.
 */
export const DAEMON_ROLES = ['sync', 'worker', 'scheduler', 'http'] as const;
export type DaemonRole = (typeof DAEMON_ROLES)[number];

/** `daemon:`: what this process runs, for several daemons sharing one (PostgreSQL) store. */
export const daemonSection = z
  .strictObject({
    roles: z
      .array(z.enum(DAEMON_ROLES))
      .min(1, { error: 'name at least one role' })
      .default([...DAEMON_ROLES])
      .describe(
        'What `reportd daemon` runs: sync (sync passes, new-run triggers, alerts), worker (renders and sends the outbox rows of the reports and alerts in this config), scheduler (enqueues reports on their crons), http (status page, health, metrics; needs http.port). `--roles` overrides it. Default all four.',
      ),
    poll_seconds: z
      .number()
      .positive()
      .max(3600)
      .default(30)
      .describe(
        'Longest a worker waits between looks at the outbox (seconds). Rows this process enqueues wake it at once; rows another process enqueues are seen within this. Default 30.',
      ),
  })
  .prefault({})
  .describe('The daemon process: its roles and how often a worker looks for work queued elsewhere.');
