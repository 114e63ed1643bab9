import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config/index.js';
import { UsageError } from '../errors/index.js';
import type { PdfRenderer } from '../report/pdf.js';
import { allowedHostOption, type ConfigOptions, configOption } from './options.js';

/**
 * `reportd studio`: a local web app to author report templates against real data. It renders
 * through the same functions as a delivery and re-renders when a template, stylesheet, theme or
 * logo file changes. `--sandbox` needs no config: it starts the sandbox API, syncs it into a
 * temporary store and authors a copy of the built-in templates (its folder is printed).
 */

interface StudioFlags extends ConfigOptions {
  sandbox?: boolean;
  hostile?: boolean;
  templates?: string;
  host: string;
  port: string;
  allowedHost: string[];
}

export function register(program: Command): void {
  program
    .command('studio')
    .description(
      'author reports in the browser: live preview of the PDF, email and payloads as templates change',
    )
    .addOption(configOption)
    .option('--sandbox', 'no config needed: start the sandbox API and a temporary store, synced')
    .option('--hostile', 'with --sandbox: hostile strings (formula, script tag) in the data')
    .option(
      '--templates <folder>',
      "the templates folder to author (default: the config's templates.dir; with --sandbox, a copy of the built-ins)",
    )
    .option(
      '--host <host>',
      'interface to listen on; off loopback only with http.auth in the config',
      '127.0.0.1',
    )
    .option('--port <port>', 'TCP port; 0 picks a free one', '8790')
    .addOption(allowedHostOption)
    .action(async (flags: StudioFlags) => {
      const port = Number(flags.port);
      if (!/^\d+$/.test(flags.port) || port > 65_535)
        throw new UsageError(`--port must be 0 to 65535 (got "${flags.port}")`);
      const cleanup: (() => Promise<void> | void)[] = [];
      const out = process.stdout;
      try {
        let config: Config;
        let configFile: { path: string; load(): Config } | undefined;
        let templatesDir = flags.templates === undefined ? undefined : resolve(flags.templates);
        const { openStore } = await import('../store/db.js');
        if (flags.sandbox) {
          const [{ startSandbox }, { loadConfig }, { runSync }, { PACKAGED_TEMPLATES_DIR }, { stringify }] =
            await Promise.all([
              import('../sandbox/server.js'),
              import('../config/load.js'),
              import('../sync/sync.js'),
              import('../report/templates.js'),
              import('yaml'),
            ]);
          const sandbox = await startSandbox({
            port: 0,
            hostile: flags.hostile ?? false,
            rate: { requests: 100_000, windowMs: 60_000 },
          });
          cleanup.push(() => sandbox.close());
          const tmp = mkdtempSync(join(tmpdir(), 'reportd-studio-sandbox-'));
          cleanup.push(() => rmSync(tmp, { recursive: true, force: true }));
          if (!templatesDir) {
            templatesDir = join(tmp, 'templates');
            cpSync(PACKAGED_TEMPLATES_DIR, templatesDir, { recursive: true });
          }
          // Written as a file, so that an author can try a theme or a section list by editing it.
          const sandboxConfig = join(tmp, 'reportd.yaml');
          writeFileSync(
            sandboxConfig,
            stringify({
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
            }),
            { mode: 0o600 },
          );
          config = loadConfig(sandboxConfig);
          configFile = { path: sandboxConfig, load: () => loadConfig(sandboxConfig) };
          const store = await openStore(config.store);
          cleanup.unshift(() => store.close());
          out.write(`reportd studio: syncing the sandbox…\n`);
          await runSync({ store, accounts: config.accounts, settings: config.sync });
          await store.close();
          cleanup.shift();
        } else {
          const { loadConfig } = await import('../config/load.js');
          config = loadConfig(flags.config);
          templatesDir ??= config.templates.dir;
          configFile = { path: resolve(flags.config), load: () => loadConfig(flags.config) };
        }
        const store = await openStore(config.store, { mustExist: true });
        cleanup.unshift(() => store.close());
        const [{ StudioSession }, { startStudio }, { pdfRendererOptions }] = await Promise.all([
          import('../studio/session.js'),
          import('../studio/server.js'),
          import('../report/renderer-config.js'),
        ]);
        const session = new StudioSession(store, config, templatesDir);
        cleanup.push(() => session.close());
        let renderer: Promise<PdfRenderer> | undefined;
        cleanup.unshift(async () => (await renderer)?.close());
        const studio = await startStudio({
          session,
          config,
          templatesDir,
          host: flags.host,
          port,
          allowedHosts: [...config.http.allowed_hosts, ...flags.allowedHost],
          watch: (of: Config) => foldersToWatch(of, templatesDir),
          ...(configFile
            ? { configFile: { ...configFile, apply: (next: Config) => session.reconfigure(next) } }
            : {}),
          renderer: () => {
            renderer ??= import('../report/pdf.js').then(
              ({ PdfRenderer }) => new PdfRenderer({ ...pdfRendererOptions(config), handleSignals: false }),
            );
            return renderer;
          },
        });
        cleanup.unshift(() => studio.close());
        out.write(`reportd studio: ${studio.url}\n`);
        if (templatesDir)
          out.write(`  templates: ${templatesDir} (saving a file there refreshes the preview)\n`);
        if (configFile) out.write(`  config: ${configFile.path} (saving it refreshes the preview)\n`);
        out.write('Press Ctrl+C to stop.\n');
        await new Promise<void>((done) => {
          process.once('SIGINT', done);
          process.once('SIGTERM', done);
        });
      } finally {
        for (const step of cleanup)
          await Promise.resolve()
            .then(step)
            .catch(() => undefined);
      }
    });
}

/** The template and logo folders a config's reports use: their changes re-render the preview. */
function foldersToWatch(config: Config, templatesDir: string | undefined): string[] {
  const folders = new Set<string>();
  if (templatesDir) folders.add(templatesDir);
  for (const report of config.reports) {
    if (report.templates?.dir) folders.add(report.templates.dir);
    if (report.theme?.logo) folders.add(dirname(report.theme.logo));
  }
  return [...folders];
}
