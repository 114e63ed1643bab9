import type { ConfigIssue } from '../errors/index.js';
import { alertIssues } from './alert-rules.js';
import { CHANNEL_SECRETS, type ChannelType, webhookKey } from './channels.js';

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
  const channels = Array.isArray(raw.channels) ? raw.channels : [];
  const alerts = Array.isArray(raw.alerts) ? raw.alerts : [];

  const accountNames = names(accounts, 'accounts', issues, 'account');
  const reportNames = names(reports, 'reports', issues, 'report');
  const channelNames = names(channels, 'channels', issues, 'channel');
  names(alerts, 'alerts', issues, 'alert');
  issues.push(...alertIssues(alerts, reportNames));
  alerts.forEach((alert, index) => {
    if (!isRecord(alert)) return;
    const path = `alerts[${index}]`;
    issues.push(...accountReferenceIssues(alert.account, `${path}.account`, accountNames));
    if (alert.email === undefined && alert.channels === undefined) {
      issues.push({ path, message: 'needs email, channels, or both (nothing would receive it)' });
    }
    issues.push(...channelReferenceIssues(alert.channels, `${path}.channels`, channelNames));
  });
  channels.forEach((entry, index) => {
    issues.push(...channelSecretIssues(entry, `channels[${index}]`));
  });
  issues.push(...storeIssues(raw.store));

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
    if (
      typeof report.active_from === 'string' &&
      typeof report.active_until === 'string' &&
      report.active_from > report.active_until
    ) {
      issues.push({
        path: `${path}.active_until`,
        message: `${report.active_until} is before active_from ${report.active_from}: it would never fire`,
      });
    }
    issues.push(...accountReferenceIssues(report.account, `${path}.account`, accountNames));
    if (report.email === undefined && report.channels === undefined) {
      issues.push({ path, message: 'needs email, channels, or both (nothing would receive it)' });
    }
    issues.push(...channelReferenceIssues(report.channels, `${path}.channels`, channelNames));
    if (isRecord(report.notify_on_failure)) {
      issues.push(
        ...channelReferenceIssues(
          report.notify_on_failure.channels,
          `${path}.notify_on_failure.channels`,
          channelNames,
        ),
      );
    }
    if (Array.isArray(report.formats)) {
      const twice = report.formats.filter((format, i, all) => all.indexOf(format) !== i);
      if (twice.length > 0)
        issues.push({ path: `${path}.formats`, message: `lists ${twice.join(', ')} twice` });
    }
  });

  // smtp is needed when a report or an alert emails; channel-only ones do without it.
  const emails = [...reports, ...alerts].filter((r) => isRecord(r) && r.email !== undefined).length;
  issues.push(...smtpIssues(raw.smtp, emails));
  const notify = raw.notify_on_failure;
  if (isRecord(notify)) {
    issues.push(...channelReferenceIssues(notify.channels, 'notify_on_failure.channels', channelNames));
  }
  if (isRecord(notify) && Array.isArray(notify.email) && notify.email.length > 0 && raw.smtp == null) {
    issues.push({ path: 'smtp', message: 'required: notify_on_failure.email sends notices by email' });
  }
  issues.push(...httpAuthIssues(isRecord(raw.http) ? raw.http.auth : undefined));
  return issues;
}

/** `http.auth`: a bearer token or basic auth, each secret inline or from a file, never both. */
function httpAuthIssues(auth: unknown): ConfigIssue[] {
  if (!isRecord(auth)) return [];
  const path = 'http.auth';
  const issues: ConfigIssue[] = [];
  const has = (key: string) => auth[key] !== undefined;
  if (has('bearer_token') && has('bearer_token_file'))
    issues.push({
      path: `${path}.bearer_token_file`,
      message: 'set bearer_token or bearer_token_file, not both',
    });
  if (has('password') && has('password_file'))
    issues.push({ path: `${path}.password_file`, message: 'set password or password_file, not both' });
  const bearer = has('bearer_token') || has('bearer_token_file');
  const basic = has('username') || has('password') || has('password_file');
  if (bearer && basic) {
    issues.push({ path, message: 'set a bearer token or basic auth (username + password), not both' });
  } else if (basic && !has('username')) {
    issues.push({ path: `${path}.username`, message: 'required with password' });
  } else if (basic && !has('password') && !has('password_file')) {
    issues.push({ path: `${path}.password`, message: 'required with username (or password_file)' });
  } else if (!bearer && !basic) {
    issues.push({ path, message: 'set bearer_token (or bearer_token_file), or username and password' });
  }
  return issues;
}

/** Each name in a `channels` list names a `channels[]` entry, once. */
function channelReferenceIssues(listed: unknown, path: string, channelNames: string[]): ConfigIssue[] {
  if (!Array.isArray(listed)) return [];
  const issues: ConfigIssue[] = [];
  listed.forEach((name, i) => {
    if (typeof name !== 'string') return;
    const at = `${path}[${i}]`;
    if (!channelNames.includes(name)) {
      issues.push({
        path: at,
        message: `no channel named "${name}" (channels: ${channelNames.join(', ') || 'none'})`,
      });
    } else if (listed.indexOf(name) !== i) {
      issues.push({ path: at, message: `lists "${name}" twice` });
    }
  });
  return issues;
}

/** Exactly one of a channel's secret and its `*_file`; a webhook secret in the `whsec_` form. */
function channelSecretIssues(entry: unknown, path: string): ConfigIssue[] {
  if (!isRecord(entry) || typeof entry.type !== 'string' || !(entry.type in CHANNEL_SECRETS)) return [];
  const { key, file } = CHANNEL_SECRETS[entry.type as ChannelType];
  if (entry[key] !== undefined && entry[file] !== undefined) {
    return [{ path: `${path}.${file}`, message: `set ${key} or ${file}, not both` }];
  }
  if (entry[key] === undefined && entry[file] === undefined) {
    return [{ path: `${path}.${key}`, message: `required (or ${file})` }];
  }
  // Said without the value: it is the secret.
  if (entry.type === 'webhook' && typeof entry.secret === 'string' && !webhookKey(entry.secret)) {
    return [{ path: `${path}.secret`, message: WHSEC_PROBLEM }];
  }
  if (entry.type === 'teams' && typeof entry.webhook_url === 'string' && !isHttpUrl(entry.webhook_url)) {
    return [{ path: `${path}.webhook_url`, message: 'expected an http(s) URL' }];
  }
  return [];
}

export const WHSEC_PROBLEM =
  'expected a Standard Webhooks secret: whsec_ followed by base64 of at least 16 bytes (e.g. whsec_$(openssl rand -base64 32))';

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
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

/** One place for the data: a file, a URL, or a file holding the URL. */
function storeIssues(store: unknown): ConfigIssue[] {
  if (!isRecord(store)) return [];
  const set = (['path', 'url', 'url_file'] as const).filter((key) => store[key] !== undefined);
  if (set.length < 2) return [];
  return [
    {
      path: `store.${set[1]}`,
      message: `set one of store.path, store.url or store.url_file, not ${set.join(' and ')}`,
    },
  ];
}

function smtpIssues(smtp: unknown, reportCount: number): ConfigIssue[] {
  if (smtp === undefined || smtp === null) {
    return reportCount > 0
      ? [{ path: 'smtp', message: 'required: some reports are delivered by email' }]
      : [];
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
