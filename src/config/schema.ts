// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own interpolation syntax.
import { z } from 'zod';
import { alert } from './alert-section.js';
import { unsafeAllowedName } from './allowed-host-names.js';
import { channel } from './channels.js';
import { daemonSection } from './daemon-section.js';
import type { RecipientRow } from './recipient-fields.js';
import { themes } from './recipient-schema.js';
import {
  account,
  cron,
  httpAuth,
  notifyOnFailure,
  positiveSeconds,
  querySets,
  report,
  smtp,
} from './sections.js';

/**
 * The one description of reportd's YAML config: validation, the TypeScript types, the JSON Schema
 * (config/reportd.schema.json) and docs/reference/config.md all come from here and sections.ts, so
 * every field says its unit and default in its `.describe()` (run `npm run gen:config` after changing one).
 *
 * Objects are strict: an unknown key is an error naming its path, because a misspelt option that is
 * silently ignored is worse than a refused one. Rules that span several fields (one account per
 * report, unique names, smtp present when reports exist) live in rules.ts.
 */

/** A DNS name (or an IPv4 address), optionally with a leading dot for its subdomains: no port, no scheme. */
const HOST_NAME =
  /^\.?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export const configSchema = z
  .strictObject({
    accounts: z
      .array(account)
      .min(1, { error: 'at least one account is needed' })
      .describe('API credentials. At least one.'),
    store: z
      .strictObject({
        path: z
          .string()
          .min(1)
          .optional()
          .describe(
            'SQLite file holding the snapshots, relative to the config file. Default ./data/reportd.sqlite (when no url is set).',
          ),
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\//i, { error: 'must be a postgres:// or postgresql:// URL' })
          .optional()
          .describe(
            'A PostgreSQL database instead of the SQLite file: postgres://user:${PGPASSWORD}@host:5432/db (the password is masked and scrubbed). Set path, url or url_file, not two.',
          ),
        url_file: z
          .string()
          .min(1)
          .optional()
          .describe('A file holding the PostgreSQL URL (Docker secrets), relative to the config file.'),
      })
      .prefault({})
      .describe('Where synced data is kept.'),
    sync: z
      .strictObject({
        schedule: cron
          .default('*/10 * * * *')
          .describe(
            'How often the daemon looks for newly published runs (cron, UTC). Default every 10 minutes.',
          ),
        query_sets: querySets.describe('Query sets to sync: `all` or a list of query set ids. Default all.'),
        backfill_runs: z
          .number()
          .int()
          .min(1)
          .default(4)
          .describe(
            'How many of the newest published runs of each query set are kept as snapshots, the latest included (count, at least 1). Older runs give the reports their trend history. Default 4.',
          ),
        catalog_ttl_minutes: z
          .number()
          .min(0)
          .default(60)
          .describe(
            'How long the brand and query set lists are trusted before being listed again (minutes). Default 60.',
          ),
        max_payload_retries: z
          .number()
          .int()
          .min(0)
          .default(3)
          .describe(
            'Syncs that may retry a payload the schema refused before the snapshot is settled: reported anyway, with "Data unavailable" and the drifted endpoint named where that payload belongs (count). Default 3.',
          ),
        max_payload_mb: z
          .number()
          .positive()
          .max(1024)
          .default(32)
          .describe(
            'Largest API answer read (megabytes); a longer one is cut off while reading and that payload fails alone, like one that does not match its schema. Real payloads are well under 1 MB. Default 32.',
          ),
      })
      .prefault({})
      .describe('What to fetch from the API and when.'),
    output: z
      .strictObject({
        dir: z
          .string()
          .min(1)
          .default('./reports')
          .describe(
            'Folder rendered reports are written to, relative to the config file. Default ./reports.',
          ),
      })
      .prefault({})
      .describe('Where rendered files go.'),
    templates: z
      .strictObject({
        dir: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Your copy of the templates/ folder (report/ and email/), relative to the config file. Default: the built-in templates.',
          ),
      })
      .prefault({})
      .describe('Custom report and email templates.'),
    chromium: z
      .strictObject({
        path: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Chromium or Chrome executable, relative to the config file; the REPORTD_CHROMIUM environment variable overrides it. Default: the first of /usr/lib/chromium/chromium-headless-shell, /usr/bin/chromium-headless-shell, /usr/bin/chromium, /usr/bin/chromium-browser, /usr/lib/chromium/chromium, /snap/bin/chromium and the usual Google Chrome paths that exists, else the browser Puppeteer downloaded.',
          ),
        render_timeout_seconds: positiveSeconds
          .default(60)
          .describe('Time one PDF render may take before it fails (seconds). Default 60.'),
        recycle_after: z
          .number()
          .int()
          .positive()
          .default(50)
          .describe('Renders after which the browser is restarted, to bound its memory (count). Default 50.'),
        concurrency: z
          .number()
          .int()
          .min(1)
          .max(16)
          .optional()
          .describe(
            'PDFs printed at once, each by a Chromium process of its own (count, 1 to 16; each browser costs its own memory). Default: the number of CPU cores, at most 4.',
          ),
      })
      .prefault({})
      .describe('The browser that prints PDFs.'),
    smtp: smtp.optional(),
    channels: z
      .array(channel)
      .default([])
      .describe(
        'Named Slack, Teams, webhook, S3, SFTP and folder destinations that reports reference by name. Default none.',
      ),
    themes,
    reports: z
      .array(report)
      .default([])
      .describe('Reports to deliver by email and/or channels. Default none.'),
    notify_on_failure: notifyOnFailure,
    alerts: z
      .array(alert)
      .default([])
      .describe('Alerts evaluated after every sync pass that stored a new run, emailed once. Default none.'),
    http: z
      .strictObject({
        port: z
          .number()
          .int()
          .min(0)
          .max(65535)
          .optional()
          .describe(
            'Port for the status page (/), /healthz, /readyz and /metrics; 0 picks a free port. Default: no HTTP server.',
          ),
        host: z
          .string()
          .min(1)
          .default('0.0.0.0')
          .describe(
            'Address the HTTP server listens on. Default 0.0.0.0 (then the status page needs `auth`).',
          ),
        auth: httpAuth.optional(),
        allowed_hosts: z
          .array(
            z.string().superRefine((name, ctx) => {
              // A wildcard or a public suffix (.com, .co.uk) would open the door it guards: said first.
              const unsafe = unsafeAllowedName(name);
              if (unsafe) ctx.addIssue({ code: 'custom', message: unsafe });
              else if (!HOST_NAME.test(name))
                ctx.addIssue({ code: 'custom', message: 'expected a host name like reports.example.com' });
            }),
          )
          .default([])
          .describe(
            "Names besides its own address that the HTTP servers (status page and probes, `reportd studio`, `reportd mcp --http`) answer to: a proxy's public name, a Kubernetes service's name (a leading dot allows subdomains: .example.com). A request naming another `Host` gets 421 and one from another `Origin` 403 (DNS rebinding). IP addresses, localhost and the listen address are always allowed. Default none.",
          ),
      })
      .prefault({})
      .describe("The daemon's HTTP listener: status page, health and Prometheus metrics endpoints."),
    daemon: daemonSection,
    delivery: z
      .strictObject({
        lease_seconds: z
          .number()
          .min(2)
          .max(3600)
          .default(90)
          .describe(
            "How long a worker's claim on an outbox row holds without a renewal (seconds, 2 to 3600). A live worker renews it every third of this, however long the render or send takes; a worker that dies or is frozen (SIGSTOP, a paused VM) loses the row about this long after its last renewal, and another worker takes it over, resending with the same id. Shorter takes over sooner; too short lets a store that is slow to answer cost a live worker its claim (its writes are then ignored and the row is sent again). Default 90.",
          ),
        keep_records: z
          .string()
          .regex(/^[1-9]\d{0,4}d$/, { message: 'a number of days, e.g. 400d' })
          .default('400d')
          .describe(
            'How long the record of each delivered file (hash, size, destination, reader, time; `reportd history --files`) is kept, in days (`400d`). Older records are pruned as new ones are written. Default 400d.',
          ),
      })
      .prefault({})
      .describe('The outbox workers of `reportd daemon` and `reportd deliver`.'),
    log: z
      .strictObject({
        level: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
          .default('info')
          .describe(
            'Least severe log level written (on stderr: JSON lines, or readable lines when stderr is a terminal). Default info.',
          ),
      })
      .prefault({})
      .describe('Logging.'),
  })
  .describe(
    'reportd configuration. Strings may use ${VAR} and ${VAR:-default} to read environment variables.',
  )
  .meta({ title: 'reportd configuration' });

/** The schema's output before load.ts resolves paths and secret files. */
export type ParsedConfig = z.output<typeof configSchema>;
type Parsed = ParsedConfig;
type ParsedSmtp = NonNullable<Parsed['smtp']>;

/** An account after loading: `api_secret` holds the secret whether it was inline or in a file. */
export type AccountConfig = Omit<Parsed['accounts'][number], 'api_secret'> & { api_secret: string };

/** SMTP after loading: a `url` is unpacked into host, port, secure, user and password. */
export type SmtpConfig = Omit<ParsedSmtp, 'host' | 'port'> & { host: string; port: number };

/** A report after loading: its recipient table (a CSV file or inline rows) read into rows. */
export type ReportConfig = Omit<Parsed['reports'][number], 'recipients'> & { recipients?: RecipientRow[] };
export type QuerySetSelection = ReportConfig['query_sets'];
export type ReportFormat = ReportConfig['formats'][number];
export type LogLevel = Parsed['log']['level'];
export type HttpAuthConfig = NonNullable<Parsed['http']['auth']>;

/**
 * The loaded config: validated, defaults applied, paths absolute, secrets read from their files,
 * deeply frozen. Only `loadConfig` / `configFromObject` (load.ts) produce one.
 */
export type Config = Omit<Parsed, 'accounts' | 'smtp' | 'channels' | 'store' | 'reports'> & {
  reports: ReportConfig[];
  accounts: AccountConfig[];
  /** The SQLite file (absolute) or the PostgreSQL URL, with a URL file read. */
  store: { path: string } | { url: string };
  smtp?: SmtpConfig;
  channels: ChannelConfig[];
};

/** A channel after loading: its secret in place whether it was inline or in a file. */
export type ChannelConfig =
  | (Extract<Parsed['channels'][number], { type: 'slack' }> & { token: string })
  | (Extract<Parsed['channels'][number], { type: 'teams' }> & { webhook_url: string })
  | (Extract<Parsed['channels'][number], { type: 'webhook' }> & { secret: string })
  | Extract<Parsed['channels'][number], { type: 's3' | 'sftp' | 'folder' }>;

/** The YAML as the user writes it (defaults optional), e.g. for `configFromObject`. */
export type ConfigInput = z.input<typeof configSchema>;
