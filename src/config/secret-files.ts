import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConfigIssue } from '../errors/index.js';
import { registerSecret } from '../secrets.js';
import { CHANNEL_SECRETS, type MessageChannelType, webhookKey } from './channels.js';
import { isRecord, WHSEC_PROBLEM } from './rules.js';

/** A secret is a line of text; anything bigger is the wrong file. */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** Secrets read from `*_file` keys, keyed by where they belong. */
export interface SecretFiles {
  accounts: Map<number, string>;
  smtpPassword?: string;
  /** `store.url_file`, read: a PostgreSQL URL with its password. */
  storeUrl?: string;
  /** `http.auth.bearer_token_file` / `http.auth.password_file`, read. */
  httpBearerToken?: string;
  httpPassword?: string;
  /** `channels[i]`'s token / webhook URL / signing secret read from its `*_file`. */
  channels: Map<number, string>;
}

/**
 * Reads `accounts[].api_secret_file` and `smtp.password_file` (Docker secrets), before the schema
 * runs, so a missing file is reported alongside every other problem. Works on the raw document.
 */
export function readSecretFiles(raw: unknown, baseDir: string, issues: ConfigIssue[]): SecretFiles {
  const found: SecretFiles = { accounts: new Map(), channels: new Map() };
  if (!isRecord(raw)) return found;
  if (Array.isArray(raw.accounts)) {
    raw.accounts.forEach((account, index) => {
      // With an inline secret as well the rules report the conflict; reading the file would only add noise.
      if (!isRecord(account) || account.api_secret !== undefined) return;
      if (typeof account.api_secret_file !== 'string' || account.api_secret_file === '') return;
      const secret = readSecret(
        account.api_secret_file,
        baseDir,
        `accounts[${index}].api_secret_file`,
        issues,
      );
      if (secret !== undefined) found.accounts.set(index, secret);
    });
  }
  if (Array.isArray(raw.channels)) {
    raw.channels.forEach((entry, index) => {
      const pair = channelSecretKeys(entry);
      if (!pair || !isRecord(entry) || entry[pair.key] !== undefined) return;
      const file = entry[pair.file];
      if (typeof file !== 'string' || file === '') return;
      const path = `channels[${index}].${pair.file}`;
      const secret = readSecret(file, baseDir, path, issues);
      if (secret === undefined) return;
      if (entry.type === 'webhook' && !webhookKey(secret)) {
        issues.push({ path, message: WHSEC_PROBLEM });
        return;
      }
      registerChannelSecret(entry.type, secret);
      found.channels.set(index, secret);
    });
  }
  const store = raw.store;
  if (isRecord(store) && store.url === undefined && typeof store.url_file === 'string' && store.url_file) {
    found.storeUrl = readSecret(store.url_file, baseDir, 'store.url_file', issues);
    registerUrlPassword(found.storeUrl);
  }
  const smtp = raw.smtp;
  if (
    isRecord(smtp) &&
    smtp.password === undefined &&
    typeof smtp.password_file === 'string' &&
    smtp.password_file !== ''
  ) {
    found.smtpPassword = readSecret(smtp.password_file, baseDir, 'smtp.password_file', issues);
  }
  const auth = isRecord(raw.http) ? raw.http.auth : undefined;
  if (isRecord(auth)) {
    if (
      auth.bearer_token === undefined &&
      typeof auth.bearer_token_file === 'string' &&
      auth.bearer_token_file
    ) {
      found.httpBearerToken = readSecret(
        auth.bearer_token_file,
        baseDir,
        'http.auth.bearer_token_file',
        issues,
      );
    }
    if (auth.password === undefined && typeof auth.password_file === 'string' && auth.password_file) {
      found.httpPassword = readSecret(auth.password_file, baseDir, 'http.auth.password_file', issues);
    }
  }
  return found;
}

function readSecret(file: string, baseDir: string, path: string, issues: ConfigIssue[]): string | undefined {
  const full = resolve(baseDir, file);
  let text: string;
  try {
    // Checked before reading: /dev/zero would fill memory, a FIFO would block the read forever.
    const stat = statSync(full);
    if (!stat.isFile()) {
      issues.push({ path, message: `${full} is not a regular file` });
      return undefined;
    }
    if (stat.size > MAX_SECRET_FILE_BYTES) {
      issues.push({
        path,
        message: `${full} is ${stat.size} bytes; a secret file holds at most ${MAX_SECRET_FILE_BYTES}`,
      });
      return undefined;
    }
    text = readFileSync(full, 'utf8');
  } catch (error) {
    issues.push({ path, message: `cannot read ${full}: ${fileProblem(error)}` });
    return undefined;
  }
  // `echo secret > file` and most editors end the file with a newline that is not part of the secret.
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '') {
    issues.push({ path, message: `${full} is empty` });
    return undefined;
  }
  registerSecret(secret);
  return secret;
}

/** Registers every inline secret of the raw document, so even a refused config never prints one. */
export function registerInlineSecrets(raw: unknown): void {
  if (!isRecord(raw)) return;
  if (Array.isArray(raw.accounts)) {
    for (const account of raw.accounts) {
      if (isRecord(account) && typeof account.api_secret === 'string') registerSecret(account.api_secret);
    }
  }
  const auth = isRecord(raw.http) ? raw.http.auth : undefined;
  if (isRecord(auth)) {
    if (typeof auth.bearer_token === 'string') registerSecret(auth.bearer_token);
    if (typeof auth.password === 'string') registerSecret(auth.password);
  }
  if (Array.isArray(raw.channels)) {
    for (const entry of raw.channels) {
      const pair = channelSecretKeys(entry);
      if (pair && isRecord(entry) && typeof entry[pair.key] === 'string') {
        registerChannelSecret(entry.type, entry[pair.key] as string);
      }
      // A receiver's token in the webhook URL's query (`?token=…`): kept out of logs, errors and the
      // dry-run's payloads like the fields the config calls secrets (mask.ts masks it in `check`).
      if (isRecord(entry) && entry.type === 'webhook' && typeof entry.url === 'string') {
        registerUrlPassword(entry.url);
        try {
          for (const value of new URL(entry.url).searchParams.values()) registerSecret(value);
        } catch {
          // Not a URL: the schema names the field.
        }
      }
    }
  }
  if (isRecord(raw.store) && typeof raw.store.url === 'string') registerUrlPassword(raw.store.url);
  const smtp = raw.smtp;
  if (!isRecord(smtp)) return;
  if (typeof smtp.password === 'string') registerSecret(smtp.password);
  if (typeof smtp.url === 'string') registerUrlPassword(smtp.url);
}

/** A URL's password, as written and percent-decoded: either may reach a message. */
function registerUrlPassword(url: string | undefined): void {
  const password = url === undefined ? undefined : urlPassword(url);
  if (password === undefined) return;
  registerSecret(password);
  registerSecret(safeDecode(password));
}

/**
 * The password part of a URL as written (percent-encoded). Falls back to a pattern when the URL does
 * not parse, because a malformed URL is exactly the one that ends up in an error message.
 */
export function urlPassword(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    if (password !== '') return password;
  } catch {
    // fall through to the pattern
  }
  return /^[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:([^@\s]+)@/i.exec(url)?.[1];
}

export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A file system error in a few words: the config path already says which file. */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return code ?? 'unreadable';
}

function channelSecretKeys(entry: unknown): { key: string; file: string } | undefined {
  if (!isRecord(entry) || typeof entry.type !== 'string' || !(entry.type in CHANNEL_SECRETS))
    return undefined;
  return CHANNEL_SECRETS[entry.type as MessageChannelType];
}

/** A webhook secret's base64 part is the key itself: scrubbed on its own too. */
function registerChannelSecret(type: unknown, secret: string): void {
  registerSecret(secret);
  if (type === 'webhook' && secret.startsWith('whsec_')) registerSecret(secret.slice('whsec_'.length));
}
