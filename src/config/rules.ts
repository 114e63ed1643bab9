import type { ConfigIssue } from '../errors/index.js';
import { alertIssues } from './alert-rules.js';

/**
 * Rules that span several fields. They run on the raw (interpolated) document even when the schema
 * found problems elsewhere, so one `reportd check` lists everything at once; hence every access is
 * defensive and a field of the wrong type is left to the schema's own message.
 */
export function crossFieldIssues(raw: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (!isRecord(raw)) return issues;
  const accounts = Array.isArray(raw.accounts) ? raw.accounts : [];
  const reports = Array.isArray(raw.reports) ? raw.reports : [];
  const alerts = Array.isArray(raw.alerts) ? raw.alerts : [];

  const accountNames = names(accounts, 'accounts', issues, 'account');
  const reportNames = names(reports, 'reports', issues, 'report');
  names(alerts, 'alerts', issues, 'alert');
  issues.push(...alertIssues(alerts, reportNames));
  alerts.forEach((alert, index) => {
    if (isRecord(alert))
      issues.push(...accountReferenceIssues(alert.account, `alerts[${index}].account`, accountNames));
  });

  accounts.forEach((account, index) => {
    if (!isRecord(account)) return;
    const path = `accounts[${index}]`;
    if (account.api_secret !== undefined && account.api_secret_file !== undefined) {
      issues.push({
        path: `${path}.api_secret_file`,
        message: 'set api_secret or api_secret_file, not both',
      });
    } else if (account.api_secret === undefined && account.api_secret_file === undefined) {
      issues.push({ path: `${path}.api_secret`, message: 'required (or api_secret_file)' });
    }
  });

  reports.forEach((report, index) => {
    if (!isRecord(report)) return;
    const path = `reports[${index}]`;
    if (report.schedule !== undefined && report.trigger !== undefined) {
      issues.push({ path: `${path}.trigger`, message: 'set schedule or trigger: new_run, not both' });
    } else if (report.schedule === undefined && report.trigger === undefined) {
      issues.push({ path, message: 'needs a schedule (cron) or trigger: new_run' });
    }
    issues.push(...accountReferenceIssues(report.account, `${path}.account`, accountNames));
    if (Array.isArray(report.formats)) {
      const twice = report.formats.filter((format, i, all) => all.indexOf(format) !== i);
      if (twice.length > 0)
        issues.push({ path: `${path}.formats`, message: `lists ${twice.join(', ')} twice` });
    }
  });

  issues.push(...smtpIssues(raw.smtp, reports.length + alerts.length));
  return issues;
}

/** Collects the names of a list and reports duplicates at the later entry. */
function names(list: unknown[], key: string, issues: ConfigIssue[], what: string): string[] {
  const seen = new Map<string, number>();
  list.forEach((entry, index) => {
    if (!isRecord(entry) || typeof entry.name !== 'string') return;
    const first = seen.get(entry.name);
    if (first === undefined) seen.set(entry.name, index);
    else {
      issues.push({
        path: `${key}[${index}].name`,
        message: `duplicate ${what} name "${entry.name}" (also ${key}[${first}])`,
      });
    }
  });
  return [...seen.keys()];
}

function accountReferenceIssues(account: unknown, path: string, accountNames: string[]): ConfigIssue[] {
  const known = accountNames.join(', ');
  if (account === undefined) {
    // With a single account the report obviously means it; with several, guessing would mail the wrong data.
    return accountNames.length > 1
      ? [{ path, message: `required when there are several accounts (${known})` }]
      : [];
  }
  if (typeof account !== 'string' || accountNames.includes(account)) return [];
  return [{ path, message: `no account named "${account}" (accounts: ${known || 'none'})` }];
}

function smtpIssues(smtp: unknown, reportCount: number): ConfigIssue[] {
  if (smtp === undefined || smtp === null) {
    return reportCount > 0 ? [{ path: 'smtp', message: 'required: reports are delivered by email' }] : [];
  }
  if (!isRecord(smtp)) return [];
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
