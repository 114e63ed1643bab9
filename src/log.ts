import pino, { type Logger } from 'pino';
import { prettyDestination } from './log-pretty.js';
import { scrub } from './secrets.js';

export type { Logger };

/**
 * Secrets are removed at the logger, so no call site can leak one by logging a config object or a
 * request. Paths cover the config shapes (`api_secret`, SMTP auth) and HTTP headers.
 */
export const REDACT_PATHS = [
  'api_secret',
  '*.api_secret',
  '*.*.api_secret',
  'accounts[*].api_secret',
  'apiSecret',
  '*.apiSecret',
  'password',
  '*.password',
  '*.*.password',
  'pass',
  '*.pass',
  '*.*.pass',
  'smtp.url',
  'headers["x-api-secret"]',
  '*.headers["x-api-secret"]',
  'headers["X-Api-Secret"]',
  '*.headers["X-Api-Secret"]',
  // Channel secrets (channels[]: Slack token, Teams webhook URL, webhook signing secret).
  'token',
  '*.token',
  'webhook_url',
  '*.webhook_url',
  'secret',
  '*.secret',
  'headers.authorization',
  '*.headers.authorization',
];

export interface LogOptions {
  level?: string;
  /**
   * Human-readable lines instead of JSON (for log collectors). Default: when stderr, where logs go,
   * is a TTY.
   */
  pretty?: boolean;
  destination?: pino.DestinationStream;
}

export function createLogger(options: LogOptions = {}): Logger {
  const level = options.level ?? process.env.REPORTD_LOG_LEVEL ?? 'info';
  const base: pino.LoggerOptions = {
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    level,
    base: undefined,
    // The last line of defence: a registered secret value is cut from the serialised line itself.
    hooks: { streamWrite: scrub },
  };
  if (options.destination) return pino(base, options.destination);
  // Pretty lines are formatted from pino's output, so redaction and scrubbing have already run.
  if (options.pretty ?? process.stderr.isTTY) return pino(base, prettyDestination(process.stderr));
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
