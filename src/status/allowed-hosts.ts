import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';

/**
 * Who may talk to a server reportd runs (the studio, MCP over HTTP, the daemon's status page, health
 * and metrics): the `Host` a request names and the `Origin` it comes from, checked before any route.
 *
 * DNS rebinding is the attack: a web page whose name the attacker points at 127.0.0.1 (or at a host
 * on the office network) reaches a server that trusts "only this machine can connect". The browser
 * still sends the attacker's name as `Host`, so a server that answers only its own names is out of
 * reach. The names allowed are those of Vite's and webpack-dev-server's `allowedHosts`:
 * - any IP address (a rebinding page always has a domain name: an IP in `Host` means the browser was
 *   pointed at the address itself, which is what Kubernetes probes and Prometheus scrapes do),
 * - `localhost` and `*.localhost` (browsers resolve them to loopback themselves, never through DNS),
 * - the name the server was told to listen on (`--host myhost.lan`),
 * - the configured public names (`http.allowed_hosts`, `--allowed-host`): a proxy's name, a Kubernetes
 *   service's; a name starting with a dot allows its subdomains too (`.example.com`).
 * A browser sends `Origin` with cross-site requests: one that is not the server's own (the origin of
 * the `Host` it asked, or a configured name) is refused, so no other site can drive the server.
 */

export interface HostRules {
  /** The address or name the server listens on. */
  host: string;
  /** Public names allowed besides (config `http.allowed_hosts`, `--allowed-host`). */
  names?: readonly string[];
}

export interface Refusal {
  status: 421 | 403;
  message: string;
}

/** `[::1]` → `::1`, `Example.COM.` → `example.com`: the forms names are compared in. */
function bare(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** The hostname of a `Host` header value (`name:port`, `[v6]:port`), or undefined when it is none. */
function hostnameOf(header: string): string | undefined {
  // Anything more than host[:port] (a path, credentials) is not a Host header.
  if (/[/?#@\\\s]/.test(header)) return undefined;
  try {
    return bare(new URL(`http://${header}`).hostname);
  } catch {
    return undefined;
  }
}

/** True when `hostname` (bare) is one of the server's names under `rules`. */
export function isAllowedHostname(hostname: string, rules: HostRules): boolean {
  if (isIP(hostname) !== 0) return true;
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  return hostname === bare(rules.host) || isConfiguredName(hostname, rules);
}

function isConfiguredName(hostname: string, rules: HostRules): boolean {
  return (rules.names ?? []).some((name) => {
    const allowed = bare(name);
    return allowed.startsWith('.')
      ? hostname === allowed.slice(1) || hostname.endsWith(allowed)
      : hostname === allowed;
  });
}

/** Why a request may not be answered (a foreign `Host` or `Origin`), or undefined when it may. */
export function foreignRequest(req: IncomingMessage, rules: HostRules): Refusal | undefined {
  const host = req.headers.host;
  // No Host at all is an HTTP/1.0 client: never a browser, so never a rebinding page.
  if (host !== undefined) {
    const hostname = hostnameOf(host);
    if (hostname === undefined || !isAllowedHostname(hostname, rules))
      return {
        status: 421,
        message: `Host ${JSON.stringify(host)} is not a name of this server: add it to http.allowed_hosts (or --allowed-host) if it is`,
      };
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  if (!isOwnOrigin(origin, host, rules))
    return {
      status: 403,
      message: `requests from ${JSON.stringify(origin)} are refused: not this server's origin`,
    };
  return undefined;
}

/**
 * The server's own origin: the scheme and authority of the `Host` it was asked for (scheme either, as
 * a TLS proxy in front changes it), or a configured public name. `null` (a sandboxed frame, a file)
 * is never one.
 */
function isOwnOrigin(origin: string, host: string | undefined, rules: HostRules): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (host !== undefined && url.host === host.toLowerCase()) return true;
  return isConfiguredName(bare(url.hostname), rules);
}

/**
 * Answers a foreign request (421 or 403, one line naming what was refused) and returns true; returns
 * false, writing nothing, for a request the server may answer.
 */
export function refuseForeign(
  req: IncomingMessage,
  res: ServerResponse,
  rules: HostRules,
  body: (message: string) => { type: string; text: string } = (message) => ({
    type: 'text/plain; charset=utf-8',
    text: `${message}\n`,
  }),
): boolean {
  const refusal = foreignRequest(req, rules);
  if (!refusal) return false;
  const { type, text } = body(refusal.message);
  res.writeHead(refusal.status, { 'content-type': type, 'cache-control': 'no-store', connection: 'close' });
  res.end(text);
  return true;
}
