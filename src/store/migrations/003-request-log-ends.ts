import type { Migration } from './migration.js';

/**
 * When each logged request ended. The live budget counts a request until a window after its END
 * (the server counts it on arrival, somewhere between start and end); a restarted process that only
 * knew starts would count the previous process's requests shorter than the server does, and could
 * get a -145 when requests were slow to arrive. NULL: still in flight, or the process died during it.
 */
const migration: Migration = {
  version: 3,
  name: 'request-log-ends',
  sql: `
ALTER TABLE request_log ADD COLUMN ended_at INTEGER; -- epoch ms
`,
};

export default migration;
