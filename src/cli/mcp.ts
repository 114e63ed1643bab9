import type { Command } from 'commander';
import type { Config } from '../config/index.js';
import { UsageError } from '../errors/index.js';
import type { ToolContext } from '../mcp/tool-parts.js';
import type { Store } from '../store/sql.js';
import { allowedHostOption, type ConfigOptions, configOption } from './options.js';

/**
 * `reportd mcp [--http HOST:PORT]`: the store's tools for AI assistants over the Model Context
 * Protocol, on stdio (what desktop assistants start) or Streamable HTTP at /mcp. Reads the store
 * only; stdout belongs to the protocol on stdio, so nothing else is printed there.
 */

interface McpFlags extends ConfigOptions {
  http?: string;
  allowedHost: string[];
}

export function parseListen(value: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535)
    throw new UsageError(`--http takes HOST:PORT (e.g. 127.0.0.1:8765), got "${value}"`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/** Renders through `renderReport`, as `reportd render` does, into the config's output folder. */
function renderer(store: Store, config: Config): ToolContext['render'] {
  return async ({ querySetId, account, runId, format }) => {
    const [{ renderReport }, { pdfRendererOptions }] = await Promise.all([
      import('../report/render.js'),
      import('../report/renderer-config.js'),
    ]);
    let chromium: Parameters<typeof renderReport>[1]['chromium'];
    if (format === 'pdf') {
      const { findChromium } = await import('../report/chromium.js');
      chromium = {
        ...pdfRendererOptions(config),
        executablePath: findChromium({ configPath: config.chromium.path }),
      };
    }
    const [path] = await renderReport(store, {
      querySetId,
      account,
      runId,
      formats: [format],
      outDir: config.output.dir,
      templatesDir: config.templates.dir,
      chromium,
    });
    return path!;
  };
}

export function register(program: Command): void {
  program
    .command('mcp')
    .description('serve the store to AI assistants over the Model Context Protocol (stdio, or --http)')
    .addOption(configOption)
    .option(
      '--http <host:port>',
      'serve Streamable HTTP at /mcp instead of stdio (loopback unless http.auth is set)',
    )
    .addOption(allowedHostOption)
    .action(async (flags: McpFlags) => {
      const listen = flags.http === undefined ? undefined : parseListen(flags.http);
      // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
      const [{ loadConfig }, { openStore }, { checkHttpAccess, serveHttp, serveStdio }] = await Promise.all([
        import('../config/load.js'),
        import('../store/db.js'),
        import('../mcp/server.js'),
      ]);
      const config = loadConfig(flags.config);
      const http = listen && {
        ...listen,
        auth: config.http.auth,
        allowedHosts: [...config.http.allowed_hosts, ...flags.allowedHost],
      };
      if (http) checkHttpAccess(http);
      const store = await openStore(config.store, { mustExist: true });
      const ctx: ToolContext = { store, render: renderer(store, config) };
      if (!http) {
        try {
          await serveStdio(ctx);
        } finally {
          await store.close();
        }
        return;
      }
      const server = await serveHttp(ctx, http);
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : http.port;
      process.stderr.write(
        `reportd mcp: listening on http://${http.host.includes(':') ? `[${http.host}]` : http.host}:${port}/mcp\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => server.close(() => resolve());
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await store.close();
    });
}
