import { isAbsolute, resolve } from 'node:path';
import type { RecipientRow } from './recipient-fields.js';
import type { AccountConfig, ChannelConfig, Config, ParsedConfig as Parsed, SmtpConfig } from './schema.js';
import { type SecretFiles, safeDecode } from './secret-files.js';

/**
 * Turns the validated document into the `Config` the modules use: paths absolute (relative ones are
 * read from the config file's folder, so the daemon does not depend on its working directory),
 * secrets from files in place, an smtp URL unpacked. Only called once every check has passed.
 */
export function resolveConfig(
  parsed: Parsed,
  baseDir: string,
  secrets: SecretFiles,
  tables: ReadonlyMap<number, RecipientRow[]> = new Map(),
): Config {
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(baseDir, path));
  const accounts: AccountConfig[] = parsed.accounts.map((account, index) => ({
    ...account,
    // The rules guarantee exactly one of the two, and that the file was read.
    api_secret: account.api_secret ?? secrets.accounts.get(index) ?? '',
    ...(account.api_secret_file === undefined ? {} : { api_secret_file: at(account.api_secret_file) }),
  }));
  const smtp = parsed.smtp === undefined ? {} : { smtp: resolveSmtp(parsed.smtp, secrets.smtpPassword, at) };
  // Keys in schema order, so `reportd check` prints them in the order of the example file.
  const config: Config = {
    accounts,
    store:
      parsed.store.url !== undefined || secrets.storeUrl !== undefined
        ? { url: parsed.store.url ?? secrets.storeUrl ?? '' }
        : { path: at(parsed.store.path ?? './data/reportd.sqlite') },
    sync: parsed.sync,
    output: { dir: at(parsed.output.dir) },
    templates: parsed.templates.dir === undefined ? {} : { dir: at(parsed.templates.dir) },
    chromium: {
      ...parsed.chromium,
      ...(parsed.chromium.path === undefined ? {} : { path: at(parsed.chromium.path) }),
    },
    ...smtp,
    channels: parsed.channels.map((entry, index) => resolveChannel(entry, secrets.channels.get(index), at)),
    themes: Object.fromEntries(
      Object.entries(parsed.themes).map(([name, theme]) => [name, resolveThemeLogo(theme, at)]),
    ),
    reports: parsed.reports.map((report, index) => {
      const { recipients: _table, ...resolved } = resolveReportPaths(report, at);
      const rows = tables.get(index);
      return rows ? { ...resolved, recipients: rows } : resolved;
    }),
    alerts: parsed.alerts,
    notify_on_failure: parsed.notify_on_failure,
    http: resolveHttp(parsed.http, secrets, at),
    daemon: parsed.daemon,
    delivery: parsed.delivery,
    log: parsed.log,
  };
  return config;
}

/** A report's theme logo and template folder, absolute. */
function resolveReportPaths(
  report: Parsed['reports'][number],
  at: (path: string) => string,
): Parsed['reports'][number] {
  const logo = report.theme?.logo;
  const dir = report.templates?.dir;
  return {
    ...report,
    ...(report.theme && logo !== undefined ? { theme: resolveThemeLogo(report.theme, at) } : {}),
    ...(dir === undefined ? {} : { templates: { dir: at(dir) } }),
  };
}

/** A theme's logo path, absolute. */
function resolveThemeLogo<T extends { logo?: string }>(theme: T, at: (path: string) => string): T {
  return theme.logo === undefined ? theme : { ...theme, logo: at(theme.logo) };
}

/** `http.auth` with the secrets from its files in place (and the file paths absolute). */
function resolveHttp(
  http: Parsed['http'],
  secrets: SecretFiles,
  at: (path: string) => string,
): Config['http'] {
  const auth = http.auth;
  if (!auth) return http;
  const token = auth.bearer_token ?? secrets.httpBearerToken;
  const password = auth.password ?? secrets.httpPassword;
  return {
    ...http,
    auth: {
      ...auth,
      ...(token === undefined ? {} : { bearer_token: token }),
      ...(password === undefined ? {} : { password }),
      ...(auth.bearer_token_file === undefined ? {} : { bearer_token_file: at(auth.bearer_token_file) }),
      ...(auth.password_file === undefined ? {} : { password_file: at(auth.password_file) }),
    },
  };
}

/** The channel's secret in its own field (inline or from its file), the file's path absolute. */
function resolveChannel(
  entry: Parsed['channels'][number],
  fileSecret: string | undefined,
  at: (path: string) => string,
): ChannelConfig {
  // The rules guarantee exactly one of the secret and its file, and that the file was read.
  switch (entry.type) {
    case 'slack':
      return {
        ...entry,
        token: entry.token ?? fileSecret ?? '',
        ...(entry.token_file === undefined ? {} : { token_file: at(entry.token_file) }),
      };
    case 'teams':
      return {
        ...entry,
        webhook_url: entry.webhook_url ?? fileSecret ?? '',
        ...(entry.webhook_url_file === undefined ? {} : { webhook_url_file: at(entry.webhook_url_file) }),
      };
    case 'webhook':
      return {
        ...entry,
        secret: entry.secret ?? fileSecret ?? '',
        ...(entry.secret_file === undefined ? {} : { secret_file: at(entry.secret_file) }),
      };
    case 'sftp':
      return {
        ...entry,
        ...(entry.private_key_file === undefined ? {} : { private_key_file: at(entry.private_key_file) }),
      };
    case 'folder':
      return { ...entry, path: at(entry.path) };
    case 's3':
      return entry;
  }
}

function resolveSmtp(
  smtp: NonNullable<Parsed['smtp']>,
  filePassword: string | undefined,
  at: (path: string) => string,
): SmtpConfig {
  const password = smtp.password ?? filePassword;
  const passwordFile = smtp.password_file === undefined ? {} : { password_file: at(smtp.password_file) };
  if (smtp.url === undefined) {
    return {
      host: smtp.host ?? '',
      port: smtp.port ?? (smtp.secure ? 465 : 587),
      secure: smtp.secure,
      ...(smtp.user === undefined ? {} : { user: smtp.user }),
      ...(password === undefined ? {} : { password }),
      ...passwordFile,
      from: smtp.from,
      shutdown_grace_seconds: smtp.shutdown_grace_seconds,
    };
  }
  const url = new URL(smtp.url);
  const secure = url.protocol === 'smtps:';
  const urlPassword = url.password === '' ? password : safeDecode(url.password);
  return {
    url: smtp.url,
    host: url.hostname,
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    ...(url.username === '' ? {} : { user: safeDecode(url.username) }),
    ...(urlPassword === undefined ? {} : { password: urlPassword }),
    ...passwordFile,
    from: smtp.from,
    shutdown_grace_seconds: smtp.shutdown_grace_seconds,
  };
}

/** Freezes the whole tree: modules share one config object and none may change it under another. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
