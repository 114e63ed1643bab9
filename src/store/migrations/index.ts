import m001 from './001-snapshots.js';
import m002 from './002-deliveries.js';
import m003 from './003-request-log-ends.js';
import m004 from './004-delivery-recipients.js';
import m005 from './005-settled-and-leases.js';
import m006 from './006-metric-values.js';
import m008 from './008-schedule-events.js';
import m009 from './009-incidents.js';
import m011 from './011-delivery-destinations.js';
import m012 from './012-alerts.js';
import m013 from './013-digest-covers.js';
import m014 from './014-notice-destinations.js';
import m015 from './015-job-slots.js';
import m016 from './016-instances.js';
import m019 from './019-payload-json-text.js';
import m020 from './020-fencing-tokens.js';
import m021 from './021-notices-on-the-queue.js';
import m028 from './028-report-fingerprints.js';
import m031 from './031-instance-clock-skew.js';
import m037 from './037-metric-values-by-metric.js';
import m044 from './044-delivered-files.js';
import type { Migration } from './migration.js';
import { postgresDdl } from './postgres-ddl.js';

export type { Migration } from './migration.js';

/** The text of `migration` for `engine`. */
export function sqlOf(migration: Migration, engine: 'sqlite' | 'postgres'): string {
  if (engine === 'sqlite') return migration.sql;
  return migration.postgres ?? postgresDdl(migration.sql);
}

export const migrations: readonly Migration[] = [
  m001,
  m002,
  m003,
  m004,
  m005,
  m006,
  m008,
  m009,
  m011,
  m012,
  m013,
  m014,
  m015,
  m016,
  m019,
  m020,
  m021,
  m028,
  m031,
  m037,
  m044,
];
