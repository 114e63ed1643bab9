import type { ConfigIssue } from '../errors/index.js';
import { alertIssues } from './alert-rules.js';
import { CHANNEL_SECRETS, type MessageChannelType, webhookKey } from './channels.js';
import { smtpFieldIssues } from './smtp-rules.js';

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
  const s3ChannelNames = channels
    .filter((c) => isRecord(c) && c.type === 's3' && typeof c.name === 'string')
    .map((c) => (c as { name: string }).name);
  const known: KnownNames = { accountNames, channelNames, s3ChannelNames };
  names(alerts, 'alerts', issues, 'alert');
  issues.push(...alertIssues(alerts, reportNames));
  alerts.forEach((alert, index) => {
    issues.push(...alertEntryIssues(alert, `alerts[${index}]`, known));
  });
  channels.forEach((entry, index) => {
    issues.push(...channelSecretIssues(entry, `channels[${index}]`));
  });
  issues.push(...storeIssues(raw.store));
  accounts.forEach((account, index) => {
    issues.push(...accountSecretIssues(account, `accounts[${index}]`));
  });
  reports.forEach((report, index) => {
    issues.push(...reportIssues(report, `reports[${index}]`, known));
  });

  // smtp is needed when a report or an alert emails; channel-only ones do without it.
  const emails = [...reports, ...alerts].filter((r) => isRecord(r) && r.email !== undefined).length;
  issues.push(...smtpIssues(raw.smtp, emails));
  issues.push(...notifyIssues(raw.notify_on_failure, raw.smtp, channelNames));
  issues.push(...httpAuthIssues(isRecord(raw.http) ? raw.http.auth : undefined));
  return issues;
}

/** The names an entry may refer to. */
interface KnownNames {
  accountNames: string[];
  channelNames: string[];
  /** The `type: s3` channels: the only stores that sign links (`links_from`). */
  s3ChannelNames?: string[];
}

/** An alert's account and channels, and somewhere for it to go. */
function alertEntryIssues(alert: unknown, path: string, known: KnownNames): ConfigIssue[] {
  if (!isRecord(alert)) return [];
  return [
    ...accountReferenceIssues(alert.account, `${path}.account`, known.accountNames),
    ...recipientIssues(alert, path),
    ...channelReferenceIssues(alert.channels, `${path}.channels`, known.channelNames),
  ];
}

/** A report or an alert without email and channels would reach no one. */
function recipientIssues(entry: Record<string, unknown>, path: string): ConfigIssue[] {
  if (entry.email !== undefined || entry.channels !== undefined || entry.recipients !== undefined) return [];
  return [{ path, message: 'needs email, channels, or both (nothing would receive it)' }];
}

/** Exactly one of an account's secret and its file. */
function accountSecretIssues(account: unknown, path: string): ConfigIssue[] {
  if (!isRecord(account)) return [];
  if (account.api_secret !== undefined && account.api_secret_file !== undefined) {
    return [{ path: `${path}.api_secret_file`, message: 'set api_secret or api_secret_file, not both' }];
  }
  if (account.api_secret === undefined && account.api_secret_file === undefined) {
    return [{ path: `${path}.api_secret`, message: 'required (or api_secret_file)' }];
  }
  return [];
}

/** A report's timing, account, recipients and formats. */
function reportIssues(report: unknown, path: string, known: KnownNames): ConfigIssue[] {
  if (!isRecord(report)) return [];
  const issues = reportTimingIssues(report, path);
  // A recipient table's rows name their accounts (recipient-fields.ts); the report's is their default.
  if (report.recipients === undefined || report.account !== undefined)
    issues.push(...accountReferenceIssues(report.account, `${path}.account`, known.accountNames));
  issues.push(...recipientIssues(report, path));
  issues.push(...channelReferenceIssues(report.channels, `${path}.channels`, known.channelNames));
  if (isRecord(report.notify_on_failure)) {
    issues.push(
      ...channelReferenceIssues(
        report.notify_on_failure.channels,
        `${path}.notify_on_failure.channels`,
        known.channelNames,
      ),
    );
  }
  if (isRecord(report.email)) issues.push(...linkIssues(report.email, `${path}.email`, known));
  if (Array.isArray(report.formats)) {
    const twice = report.formats.filter((format, i, all) => all.indexOf(format) !== i);
    if (twice.length > 0)
      issues.push({ path: `${path}.formats`, message: `lists ${twice.join(', ')} twice` });
  }
  return issues;
}

/** `attach: links|auto` needs `links_from`, and it must name an S3 channel (the store that signs links). */
function linkIssues(email: Record<string, unknown>, path: string, known: KnownNames): ConfigIssue[] {
  const links = email.attach === 'links' || email.attach === 'auto';
  const s3 = known.s3ChannelNames ?? [];
  if (email.links_from === undefined)
    return links
      ? [
          {
            path: `${path}.links_from`,
            message: `required with attach: ${email.attach} (the S3 channel the links point into)`,
          },
        ]
      : [];
  if (typeof email.links_from !== 'string') return [];
  if (!s3.includes(email.links_from))
    return [
      {
        path: `${path}.links_from`,
        message: `"${email.links_from}" is not an s3 channel (s3 channels: ${s3.join(', ') || 'none'})`,
      },
    ];
  return [];
}

/** A schedule or a trigger (one of them), and an active window that can ever be open. */
function reportTimingIssues(report: Record<string, unknown>, path: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
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
  return issues;
}

/** The top-level `notify_on_failure`: its channels exist, and its email has an smtp to go by. */
function notifyIssues(notify: unknown, smtp: unknown, channelNames: string[]): ConfigIssue[] {
  if (!isRecord(notify)) return [];
  const issues = channelReferenceIssues(notify.channels, 'notify_on_failure.channels', channelNames);
  if (Array.isArray(notify.email) && notify.email.length > 0 && smtp == null) {
    issues.push({ path: 'smtp', message: 'required: notify_on_failure.email sends notices by email' });
  }
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
  const { key, file } = CHANNEL_SECRETS[entry.type as MessageChannelType];
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
  return isRecord(smtp) ? smtpFieldIssues(smtp) : [];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
