import type { IncomingMessage } from 'node:http';
import type { HttpAuthConfig } from '../config/schema.js';

/**
 * Who may see the status page. It shows the company's reports, deliveries and recipients' results,
 * so it is served without credentials only on a loopback listener; on any other address only with
 * `http.auth`, and without it not at all (the probes /healthz, /readyz, /metrics never come here).
 */

/** 127.0.0.0/8, ::1 and localhost: only processes on this machine can reach such a listener. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

export type Access =
  | { mode: 'open' }
  | { mode: 'auth'; auth: HttpAuthConfig }
  /** `reason` is the whole 404 body: it names the setting, and nothing of the company's data. */
  | { mode: 'off'; reason: string };

export function statusPageAccess(http: { host: string; auth?: HttpAuthConfig }): Access {
  if (http.auth) return { mode: 'auth', auth: http.auth };
  if (isLoopbackHost(http.host)) return { mode: 'open' };
  return { mode: 'off', reason: statusPageOffReason(http.host) };
}

export function statusPageOffReason(host: string): string {
  return `the status page is off: http.host ${host} is not a loopback address and http.auth is not set`;
}

/** Compared as digests with timingSafeEqual: equal length, and no timing hint of a right prefix. */
function same(given: string, expected: string): boolean {
  // Loaded here, not at the top: `reportd check` reads statusPageAccess and compares no credentials.
  const { createHash, timingSafeEqual } = process.getBuiltinModule('node:crypto');
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** True when the request carries the configured bearer token or basic credentials. */
export function isAuthorized(req: IncomingMessage, auth: HttpAuthConfig): boolean {
  const header = req.headers.authorization ?? '';
  const space = header.indexOf(' ');
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (auth.bearer_token !== undefined) return scheme === 'bearer' && same(value, auth.bearer_token);
  if (scheme !== 'basic' || auth.username === undefined || auth.password === undefined) return false;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  // Both compared, whatever the first gives: no hint of which half was wrong.
  const userOk = same(decoded.slice(0, colon), auth.username);
  const passwordOk = same(decoded.slice(colon + 1), auth.password);
  return userOk && passwordOk;
}

/** The challenge of a 401, matching the configured kind. */
export function challenge(auth: HttpAuthConfig): string {
  return auth.bearer_token !== undefined
    ? 'Bearer realm="reportd"'
    : 'Basic realm="reportd", charset="UTF-8"';
}

/**
 * Why `req` may not see what the status page shows (the page itself, `/readyz?verbose`), as the
 * answer to give instead; undefined when it may.
 */
export function accessRefusal(
  access: Access,
  req: IncomingMessage,
): { status: number; body: string; headers: Record<string, string> } | undefined {
  if (access.mode === 'off') return { status: 404, body: access.reason, headers: {} };
  if (access.mode === 'auth' && !isAuthorized(req, access.auth)) {
    return {
      status: 401,
      body: 'authentication required (see http.auth)',
      headers: { 'www-authenticate': challenge(access.auth) },
    };
  }
  return undefined;
}
