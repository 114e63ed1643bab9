import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { testEngine } from './test-store.js';

/**
 * A new, empty, uniquely named database on the run's PostgreSQL server (see postgres-setup.ts), so
 * each test file or test owns its data: workers running at once never see each other's tables.
 * Returns `postgres://…/NAME`, the same credentials as the admin URL.
 */
export async function freshDatabaseUrl(): Promise<string> {
  const adminUrl = inject('postgresAdminUrl');
  const prefix = inject('postgresDatabasePrefix');
  if (!adminUrl) {
    throw new Error(
      'freshDatabaseUrl: no PostgreSQL server for this run; run the test in the `postgres` vitest project (npm run test:pg)',
    );
  }
  // PostgreSQL folds unquoted names to lower case and caps them at 63 bytes: hex keeps it safe.
  const name = `${prefix}${process.pid}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    // template0, not template1: concurrent CREATE DATABASE from a template someone is connected to fails.
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE template0 ENCODING 'UTF8'`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The config's `store:` line for the engine this project runs: a fresh PostgreSQL database in the
 * `postgres` project, `sqliteFile` otherwise, so a suite listed in bothEngines runs on both.
 */
export async function storeLine(sqliteFile: string): Promise<string> {
  return testEngine() === 'postgres'
    ? `store: { url: "${await freshDatabaseUrl()}" }`
    : `store: { path: "${sqliteFile}" }`;
}
