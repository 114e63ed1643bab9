import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { testEngine } from '../helpers/test-store.js';

/**
 * `store.url` through the built CLI, as a user meets it: a server that does not answer, a password
 * in the URL, a config naming two stores. PostgreSQL project only (it needs the test server).
 */
const onPostgres = testEngine() === 'postgres';
// Distinctive, so a hit in any output can only be a leak. URL-safe, so it is the URL's password as typed.
const PASSWORD = 'Pg-s3cret-Zq7xW';

let dir: string;
let databaseUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-pgstore-'));
  if (onPostgres) databaseUrl = await freshDatabaseUrl();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `url` with PASSWORD put in as its password. */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

/** A port nothing listens on: bound and released by us just now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function writeConfig(name: string, store: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `accounts:
  - name: acme
    base_url: http://127.0.0.1:9/v2/integration
    api_key: key-1
    api_secret: api-secret-1
store: ${store}
log: { level: warn }
`,
  );
  return file;
}

const reportd = (config: string, ...args: string[]) => runCli([...args, '--config', config], { cwd: dir });

describe.skipIf(!onPostgres)('store.url in the CLI (PostgreSQL)', () => {
  it('a server that does not answer: exit 1, one line naming host and port, no stack, no password', async () => {
    const port = await closedPort();
    const config = writeConfig(
      'unreachable.yaml',
      `{ url: "postgres://reportd:${PASSWORD}@127.0.0.1:${port}/reportd" }`,
    );
    const result = await reportd(config, 'status');
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`127.0.0.1:${port}`);
    expect(lines[0]).toMatch(/connection refused/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });

  it('masks the password in `check` and never prints it in check, status or sync errors', async () => {
    // The test server trusts local connections, so the password is carried but not needed.
    const url = withPassword(databaseUrl);
    expect(url).toContain(`:${PASSWORD}@`);
    const config = writeConfig('password.yaml', `{ url: "${url}" }`);

    const check = await reportd(config, 'check');
    expect(check.code, check.stderr).toBe(0);
    const shown = check.stdout.split('\n').find((line) => line.includes('postgres://'));
    expect(shown, check.stdout).toBeDefined();
    expect(shown).toMatch(/postgres:\/\/postgres:\*+@127\.0\.0\.1:\d+\/reportd_test_/);
    expect(check.stdout + check.stderr).not.toContain(PASSWORD);

    const status = await reportd(config, 'status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout + status.stderr).not.toContain(PASSWORD);

    // A sync that fails (the account's API does not answer) still says nothing of the store's password.
    const sync = await reportd(config, 'sync', '--no-progress');
    expect(sync.code).not.toBe(0);
    expect(sync.stdout + sync.stderr).not.toContain(PASSWORD);
  });

  it('refuses a config that sets both store.path and store.url: exit 2 naming store.url', async () => {
    const config = writeConfig(
      'both.yaml',
      `{ path: ./data/reportd.sqlite, url: "${withPassword(databaseUrl)}" }`,
    );
    for (const command of ['check', 'status']) {
      const result = await reportd(config, command);
      expect(result.code, `${command}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain('store.url');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    }
  });
});
