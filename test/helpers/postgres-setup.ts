import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { type PostgresCluster, startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the PostgreSQL server the `postgres` project's tests create their databases on. */
    postgresAdminUrl: string;
    /** Prefix of every database this run creates, so the teardown drops only its own. */
    postgresDatabasePrefix: string;
  }
}

/**
 * globalSetup of the `postgres` vitest project: one server per `vitest run`, handed to the test
 * files through provide/inject (test/helpers/postgres.ts). A throwaway cluster unless
 * REPORTD_TEST_DATABASE_URL names a server to use (CI with a service container, say), in which case
 * nothing is started and the databases this run created are dropped at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const prefix = `reportd_test_${randomBytes(4).toString('hex')}_`;
  const external = process.env.REPORTD_TEST_DATABASE_URL;
  let cluster: PostgresCluster | undefined;
  let adminUrl: string;
  if (external) {
    adminUrl = external;
  } else {
    const startedAt = performance.now();
    try {
      cluster = await startPostgresCluster();
    } catch (error) {
      // A missing server is a setup problem, not a bug: vitest prints its one line without frames.
      const message = error instanceof Error ? error.message : String(error);
      const setupError = new Error(message);
      setupError.stack = `Error: ${message}`;
      throw setupError;
    }
    adminUrl = cluster.adminUrl;
    const ms = Math.round(performance.now() - startedAt);
    process.stdout.write(`PostgreSQL test cluster on 127.0.0.1:${cluster.port} (started in ${ms} ms)\n`);
  }
  project.provide('postgresAdminUrl', adminUrl);
  project.provide('postgresDatabasePrefix', prefix);

  return async () => {
    if (cluster) {
      cluster.stop();
      return;
    }
    await dropRunDatabases(adminUrl, prefix);
  };
}

/** On a server that outlives the run, leave it as we found it. */
async function dropRunDatabases(adminUrl: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix],
    );
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}
