/**
 * The server counts requests per API key; the key is qualified by the server's origin so two servers
 * (a sandbox and production, or two sandboxes in tests) never share one window. `status` and the
 * daemon's metrics use the same function to read the request_log.
 */
export function budgetKeyFor(account: { base_url: string; api_key: string }): string {
  let origin = account.base_url;
  try {
    origin = new URL(account.base_url).origin;
  } catch {
    // An invalid URL fails later with a clear message from the client; the key just needs to exist.
  }
  return `${account.api_key}@${origin}`;
}
