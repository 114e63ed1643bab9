import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { testEngine } from '../helpers/test-store.js';

const onPostgres = testEngine() === 'postgres';

/** The test PostgreSQL server, as the store suites of the `postgres` project see it. */
describe.skipIf(!onPostgres)(
  'the throwaway PostgreSQL of the postgres test project (only there: npm run test:pg)',
  () => {
    const clients: pg.Client[] = [];
    const connect = async (url: string): Promise<pg.Client> => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      clients.push(client);
      return client;
    };
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.end()));
    });

    it('is a real PostgreSQL server', async () => {
      const client = await connect(await freshDatabaseUrl());
      const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
      expect(rows[0]?.server_version).toMatch(/^\d+(\.\d+)?/);
      const { rows: version } = await client.query<{ version: string }>('SELECT version()');
      expect(version[0]?.version).toMatch(/^PostgreSQL \d+/);
    });

    it('gives every caller its own empty database: a table made in one is absent from the other', async () => {
      const [firstUrl, secondUrl] = await Promise.all([freshDatabaseUrl(), freshDatabaseUrl()]);
      expect(firstUrl).not.toBe(secondUrl);
      expect(firstUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/reportd_test_/);
      const first = await connect(firstUrl);
      const second = await connect(secondUrl);

      await first.query('CREATE TABLE snapshots (id integer PRIMARY KEY, label text NOT NULL)');
      await first.query("INSERT INTO snapshots VALUES (1, 'only here')");

      const tableIn = async (client: pg.Client): Promise<string | null> =>
        (await client.query<{ t: string | null }>("SELECT to_regclass('public.snapshots')::text AS t"))
          .rows[0]?.t ?? null;
      expect(await tableIn(first)).toBe('snapshots');
      expect(await tableIn(second)).toBeNull();
      await expect(second.query('SELECT * FROM snapshots')).rejects.toThrow(
        /relation "snapshots" does not exist/,
      );
      expect((await first.query('SELECT label FROM snapshots')).rows).toEqual([{ label: 'only here' }]);
    });

    it('creates many databases at once without tripping over each other', async () => {
      const urls = await Promise.all(Array.from({ length: 8 }, () => freshDatabaseUrl()));
      expect(new Set(urls).size).toBe(8);
      const client = await connect(urls[7] as string);
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'",
      );
      expect(rows[0]?.n).toBe(0);
    });
  },
);
