import { DAEMON_ROLES, type DaemonRole } from '../../config/daemon-section.js';
import { UsageError } from '../../errors/index.js';

/**
 * The roles (declared with the config field, config/daemon-section.ts): `worker` renders and sends
 * any outbox row its config knows, `scheduler` enqueues reports on their crons, `sync` runs the sync
 * passes (then the new-run triggers and the alerts), `http` serves the status page, health and metrics.
 */
export { DAEMON_ROLES, type DaemonRole };

/**
 * `--roles worker,http` → the roles; an unknown or missing name is one line naming it and `source`
 * (the flag or the config field it came from).
 */
export function parseRoles(text: string, source = '--roles'): ReadonlySet<DaemonRole> {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new UsageError(`${source} is empty (roles: ${DAEMON_ROLES.join(', ')})`);
  for (const name of names) {
    if (!(DAEMON_ROLES as readonly string[]).includes(name)) {
      throw new UsageError(`${source}: unknown role "${name}" (roles: ${DAEMON_ROLES.join(', ')})`);
    }
  }
  return new Set(names as DaemonRole[]);
}
