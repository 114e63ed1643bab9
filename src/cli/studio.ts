import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config/index.js';
import { UsageError } from '../errors/index.js';
import type { PdfRenderer } from '../report/pdf.js';
import type { Studio } from '../studio/server.js';
import { allowedHostOption, type ConfigOptions, configOption } from './options.js';
import { type Authoring, type Cleanup, sandboxAuthoring } from './studio-sandbox.js';

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
    .action(runStudio);
}

async function runStudio(flags: StudioFlags): Promise<void> {
  const port = Number(flags.port);
  if (!/^\d+$/.test(flags.port) || port > 65_535)
    throw new UsageError(`--port must be 0 to 65535 (got "${flags.port}")`);
  const cleanup: Cleanup = [];
  const out = process.stdout;
  try {
    const templatesDir = flags.templates === undefined ? undefined : resolve(flags.templates);
    const authoring = flags.sandbox
      ? await sandboxAuthoring({ hostile: flags.hostile ?? false, templatesDir }, cleanup, out)
      : await configAuthoring(flags.config, templatesDir);
    const studio = await serve(authoring, flags, port, cleanup);
    out.write(`reportd studio: ${studio.url}\n`);
    if (authoring.templatesDir)
      out.write(`  templates: ${authoring.templatesDir} (saving a file there refreshes the preview)\n`);
    out.write(`  config: ${authoring.configFile.path} (saving it refreshes the preview)\n`);
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
}

/** The operator's config file, and its templates folder unless `--templates` names another. */
async function configAuthoring(path: string, templatesDir: string | undefined): Promise<Authoring> {
  const { loadConfig } = await import('../config/load.js');
  const config = loadConfig(path);
  return {
    config,
    configFile: { path: resolve(path), load: () => loadConfig(path) },
    templatesDir: templatesDir ?? config.templates.dir,
  };
}

/** Opens the store and starts the studio over it; the PDF renderer starts on the first print. */
async function serve(
  { config, configFile, templatesDir }: Authoring,
  flags: StudioFlags,
  port: number,
  cleanup: Cleanup,
): Promise<Studio> {
  const { openStore } = await import('../store/db.js');
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
    configFile: { ...configFile, apply: (next: Config) => session.reconfigure(next) },
    renderer: () => {
      renderer ??= import('../report/pdf.js').then(
        ({ PdfRenderer }) => new PdfRenderer({ ...pdfRendererOptions(config), handleSignals: false }),
      );
      return renderer;
    },
  });
  cleanup.unshift(() => studio.close());
  return studio;
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
