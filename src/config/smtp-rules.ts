import type { ConfigIssue } from '../errors/index.js';

/** `smtp`'s own fields: a URL or a host, one password, a user to go with it, escapes that decode. */
export function smtpFieldIssues(smtp: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const passwordInUrl = typeof smtp.url === 'string' && urlHasPassword(smtp.url);
  if (smtp.url !== undefined) {
    for (const key of ['host', 'port', 'secure', 'user'] as const) {
      if (smtp[key] !== undefined)
        issues.push({ path: `smtp.${key}`, message: 'not allowed with smtp.url (put it in the URL)' });
    }
  } else if (smtp.host === undefined) {
    issues.push({ path: 'smtp.host', message: 'required (or smtp.url)' });
  }
  const hasPassword = smtp.password !== undefined || smtp.password_file !== undefined;
  if (smtp.url === undefined && hasPassword && smtp.user === undefined) {
    issues.push({ path: 'smtp.user', message: 'required when a password is set' });
  }
  if (smtp.password !== undefined && smtp.password_file !== undefined) {
    issues.push({ path: 'smtp.password_file', message: 'set password or password_file, not both' });
  }
  if (passwordInUrl && hasPassword) {
    const key = smtp.password !== undefined ? 'password' : 'password_file';
    issues.push({ path: `smtp.${key}`, message: 'smtp.url already holds a password' });
  }
  if (typeof smtp.url === 'string' && !credentialsDecode(smtp.url)) {
    // Said without the URL: it holds the password.
    issues.push({
      path: 'smtp.url',
      message: 'the user or password has a malformed percent-escape (write a literal % as %25)',
    });
  }
  return issues;
}

/** Whether the URL's user and password percent-decode (false only for a malformed escape). */
function credentialsDecode(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return true; // not a URL at all: the schema says so
  }
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
    return true;
  } catch {
    return false;
  }
}

function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}
