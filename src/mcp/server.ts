import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { HttpAuthConfig } from '../config/schema.js';
import { UsageError } from '../errors/index.js';
import { createServer } from '../http-server.js';
import { challenge, isAuthorized, isLoopbackHost } from '../status/access.js';
import { type HostRules, refuseForeign } from '../status/allowed-hosts.js';
import { VERSION } from '../version.js';
import { LineLimit, MAX_STDIO_LINE } from './line-limit.js';
import type { ToolContext } from './tool-parts.js';
import { registerTools } from './tools.js';

/**
 * `reportd mcp`: the tools over the store as a Model Context Protocol server, on stdio (a desktop
 * assistant starts it) or Streamable HTTP. HTTP is stateless, one MCP server per request, as the
 * SDK's stateless example does: the tools keep no session, and a request costs a few registrations.
 */

const INSTRUCTIONS =
  'reportd holds every published run of the brand-visibility reporting it synced, offline. Start with ' +
  'list_sets, then list_runs or list_metrics; metric_series, compare_runs, error_register and cited_sources ' +
  'answer from stored runs only (nothing here calls the live API).';

export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer({ name: 'reportd', version: VERSION }, { instructions: INSTRUCTIONS });
  registerTools(server, ctx);
  return server;
}

export async function serveStdio(ctx: ToolContext): Promise<void> {
  const server = createMcpServer(ctx);
  const input = limitedStdin();
  const transport = new StdioServerTransport(input, process.stdout, {
    // Never reached: every line it gets is at most MAX_STDIO_LINE (line-limit.ts).
    maxBufferSize: 2 * MAX_STDIO_LINE + 1,
  });
  // The client closing our stdin is the normal end of a session: the SDK's transport does not watch
  // for it, and an await that never settles made the process exit 13 as if it had crashed.
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    input.once('end', resolve);
    input.once('close', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

/** stdin with lines over `MAX_STDIO_LINE` answered by a JSON-RPC error and a stderr line, and skipped. */
function limitedStdin(): Readable {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return process.stdin.pipe(
    new LineLimit(MAX_STDIO_LINE, ({ id, bytes }) => {
      const message = `a message of ${mb(bytes)} was skipped: reportd mcp reads messages of at most ${mb(MAX_STDIO_LINE)}`;
      process.stderr.write(`reportd mcp: ${message}\n`);
      // Written whole, as one line, between the transport's own lines: stdout keeps writes in order.
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message } })}\n`);
    }),
  );
}

export interface HttpOptions {
  host: string;
  port: number;
  /** `http.auth` of the config: required off loopback, enforced wherever it is set. */
  auth?: HttpAuthConfig;
  /** `http.allowed_hosts` and `--allowed-host`: names besides the address requests may name. */
  allowedHosts?: readonly string[];
}

/** Refuses, before listening, an address other machines can reach without a token. */
export function checkHttpAccess(options: HttpOptions): void {
  if (options.auth?.bearer_token === undefined && !isLoopbackHost(options.host))
    throw new UsageError(
      `reportd mcp --http ${options.host}: not a loopback address, and http.auth.bearer_token (or bearer_token_file) is not set`,
    );
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const rpcError = (message: string) => ({
  type: 'application/json',
  text: JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }),
});

async function handle(ctx: ToolContext, options: HttpOptions, req: IncomingMessage, res: ServerResponse) {
  const hosts: HostRules = { host: options.host, names: options.allowedHosts ?? [] };
  if (refuseForeign(req, res, hosts, rpcError)) return;
  if (options.auth?.bearer_token !== undefined && !isAuthorized(req, options.auth)) {
    return reply(res, 401, 'unauthorized: send Authorization: Bearer <token>', {
      'www-authenticate': challenge(options.auth),
    });
  }
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path !== '/mcp') return reply(res, 404, 'the MCP endpoint is /mcp');
  if (req.method !== 'POST') return reply(res, 405, 'stateless server: POST /mcp', { allow: 'POST' });
  const server = createMcpServer(ctx);
  // The Host and Origin were checked above, as every server of reportd checks them (allowed-hosts.ts):
  // the SDK's own check compares whole header values, so it refused names the docs promise
  // ([::1], localhost., *.localhost) and answered 403 where the other servers answer 421.
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

export async function serveHttp(ctx: ToolContext, options: HttpOptions): Promise<Server> {
  checkHttpAccess(options);
  const http = createServer((req, res) => {
    handle(ctx, options, req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `reportd could not answer: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, resolve);
  });
  return http;
}
