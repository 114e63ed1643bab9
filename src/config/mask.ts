import type { Config } from './schema.js';
import { urlPassword } from './secret-files.js';

export const MASK = '********';

/**
 * A copy of the config safe to print (`reportd check`): API secrets, SMTP passwords, the password
 * inside an SMTP URL and channel secrets (Slack token, Teams webhook URL, webhook signing secret) are replaced by `********`. Masking by field complements `scrub()`, which masks
 * by value.
 */
export function maskedConfig(config: Config): Config {
  const copy = structuredClone(config) as Config;
  for (const account of copy.accounts) account.api_secret = MASK;
  const auth = copy.http.auth;
  if (auth?.bearer_token !== undefined) auth.bearer_token = MASK;
  if (auth?.password !== undefined) auth.password = MASK;
  for (const channel of copy.channels) {
    if (channel.type === 'slack') channel.token = MASK;
    else if (channel.type === 'teams') channel.webhook_url = MASK;
    else if (channel.type === 'webhook') {
      channel.secret = MASK;
      channel.url = maskQuery(channel.url);
    }
  }
  if ('url' in copy.store) {
    const password = urlPassword(copy.store.url);
    if (password !== undefined) copy.store = { url: maskUrl(copy.store.url, password) };
  }
  const smtp = copy.smtp;
  if (smtp) {
    if (smtp.password !== undefined) smtp.password = MASK;
    if (smtp.url !== undefined) {
      const password = urlPassword(smtp.url);
      if (password !== undefined) smtp.url = maskUrl(smtp.url, password);
    }
  }
  return copy;
}

/**
 * A webhook URL with its query values masked: receivers often take a token there (`?token=…`), which
 * the config does not mark as a secret but `check` must not print. A password in it is masked too.
 */
function maskQuery(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password) parsed.password = MASK;
  if (!parsed.search) return parsed.password ? parsed.toString() : url;
  for (const key of new Set(parsed.searchParams.keys())) parsed.searchParams.set(key, MASK);
  return parsed.toString();
}

function maskUrl(url: string, password: string): string {
  const masked = url.replace(`:${password}@`, `:${MASK}@`);
  if (masked !== url) return masked;
  // The URL parser re-encoded the password; let it write the URL back with the mask in place.
  const parsed = new URL(url);
  parsed.password = MASK;
  return parsed.toString();
}
