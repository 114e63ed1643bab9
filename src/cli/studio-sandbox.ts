import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config/index.js';

/**
 * `reportd studio --sandbox`: the sandbox API on a free port, synced into a temporary store, with a
 * config file written beside it and (unless `--templates` names a folder) a copy of the built-in
 * templates to author. Everything it starts or writes is undone by the steps it adds to `cleanup`.
 */

/** Steps run in order when the studio stops (or fails to start), each whatever the others did. */
export type Cleanup = (() => Promise<void> | void)[];

/** What the studio authors against: the config, the file it is re-read from, the templates folder. */
export interface Authoring {
  config: Config;
  configFile: { path: string; load(): Config };
  templatesDir: string | undefined;
}

/** How the sandbox is reached: what its config file names. */
interface SandboxAddress {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
}

export async function sandboxAuthoring(
  options: { hostile: boolean; templatesDir: string | undefined },
  cleanup: Cleanup,
  out: NodeJS.WritableStream,
): Promise<Authoring> {
  const [
    { openStore },
    { startSandbox },
    { loadConfig },
    { runSync },
    { PACKAGED_TEMPLATES_DIR },
    { stringify },
  ] = await Promise.all([
    import('../store/db.js'),
    import('../sandbox/server.js'),
    import('../config/load.js'),
    import('../sync/sync.js'),
    import('../report/templates.js'),
    import('yaml'),
  ]);
  const sandbox = await startSandbox({
    port: 0,
    hostile: options.hostile,
    rate: { requests: 100_000, windowMs: 60_000 },
  });
  cleanup.push(() => sandbox.close());
  const tmp = mkdtempSync(join(tmpdir(), 'reportd-studio-sandbox-'));
  cleanup.push(() => rmSync(tmp, { recursive: true, force: true }));
  let templatesDir = options.templatesDir;
  if (!templatesDir) {
    templatesDir = join(tmp, 'templates');
    cpSync(PACKAGED_TEMPLATES_DIR, templatesDir, { recursive: true });
  }
  // Written as a file, so that an author can try a theme or a section list by editing it.
  const path = join(tmp, 'reportd.yaml');
  writeFileSync(path, stringify(sandboxConfig(sandbox, tmp, templatesDir)), { mode: 0o600 });
  const config = loadConfig(path);
  const store = await openStore(config.store);
  cleanup.unshift(() => store.close());
  out.write(`reportd studio: syncing the sandbox…\n`);
  await runSync({ store, accounts: config.accounts, settings: config.sync });
  await store.close();
  cleanup.shift();
  return { config, configFile: { path, load: () => loadConfig(path) }, templatesDir };
}

/** The sandbox's config: its account, a store in `tmp`, two sets to sync and two reports to pick. */
function sandboxConfig(sandbox: SandboxAddress, tmp: string, templatesDir: string) {
  return {
    accounts: [
      {
        name: 'sandbox',
        base_url: sandbox.baseUrl,
        api_key: sandbox.apiKey,
        api_secret: sandbox.apiSecret,
        rate_limit: { requests: 100_000, window_seconds: 60 },
      },
    ],
    store: { path: join(tmp, 'reportd.sqlite') },
    // Two sets and their last runs: enough to author with, synced in seconds.
    sync: { query_sets: [101, 102], backfill_runs: 2 },
    templates: { dir: templatesDir },
    smtp: { host: '127.0.0.1', from: 'reportd <reportd@example.com>' },
    reports: [
      {
        name: 'per-set',
        mode: 'per_set',
        schedule: { cron: '0 8 * * 1' },
        email: { to: ['preview@example.com'] },
      },
      {
        name: 'digest',
        mode: 'digest',
        schedule: { cron: '0 8 * * 1' },
        email: { to: ['preview@example.com'] },
        // A second look to pick in the Theme picker (an agency's other client).
        theme: { primary: '#2e7d32', accent: '#f9a825', cover_title: 'Sandbox digest' },
      },
    ],
    log: { level: 'warn' },
  };
}
