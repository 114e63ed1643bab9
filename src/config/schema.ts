// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own interpolation syntax.
import { z } from 'zod';
import { cronProblem, EMAIL_ADDRESS, timezoneProblem } from './validators.js';

/**
 * The one description of reportd's YAML config: validation, the TypeScript types, the JSON Schema
 * (config/reportd.schema.json) and docs/config-reference.md all come from here, so every field says
 * its unit and default in its `.describe()` (run `npm run gen:config` after changing one).
 *
 * Objects are strict: an unknown key is an error naming its path, because a misspelt option that is
 * silently ignored is worse than a refused one. Rules that span several fields (one account per
 * report, unique names, smtp present when reports exist) live in rules.ts.
 */

const cron = z.string().superRefine((expression, ctx) => {
  const problem = cronProblem(expression);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const timezone = z.string().superRefine((zone, ctx) => {
  const problem = timezoneProblem(zone);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const emailAddress = z.string().regex(EMAIL_ADDRESS, {
  message: 'expected an email address like ops@example.com or "Ops <ops@example.com>"',
});

const querySets = z
  .union([z.literal('all'), z.array(z.number().int().positive()).min(1)], {
    error: 'expected "all" or a non-empty list of query set ids (positive integers)',
  })
  .default('all');

const positiveSeconds = z.number().positive();

const rateLimit = z
  .strictObject({
    requests: z
      .number()
      .int()
      .positive()
      .default(120)
      .describe('Requests the API allows per API key in one window (count). Default 120.'),
    window_seconds: positiveSeconds
      .default(60)
      .describe('Length of the sliding rate-limit window (seconds). Default 60.'),
  })
  .prefault({})
  .describe('Request budget shared by every request made with this API key. Default 120 per 60 s.');

const account = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, { message: 'use letters, digits, ".", "-" and "_" (no spaces)' })
      .describe('Unique name of the account, used in logs, the store and `reports[].account`. Required.'),
    base_url: z
      .url({
        protocol: /^https?$/,
        error: 'expected an http(s) URL such as https://api.example.com/v2/integration',
      })
      .describe('Base URL of the Integration Reporting API, including `/v2/integration`. Required.'),
    api_key: z.string().min(1).describe('API key (public identifier, sent as X-Api-Key). Required.'),
    api_secret: z
      .string()
      .min(1)
      .optional()
      .describe(
        'API secret (sent as X-Api-Secret). Set this or `api_secret_file`; prefer `${VAR}` over a literal.',
      ),
    api_secret_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'File holding the API secret (a Docker secret such as /run/secrets/api_secret); one trailing newline is ignored. Relative to the config file. Set this or `api_secret`.',
      ),
    rate_limit: rateLimit,
    concurrency: z
      .number()
      .int()
      .positive()
      .default(4)
      .describe('Requests in flight at once for this account (count). Default 4.'),
    timeout_seconds: positiveSeconds
      .default(30)
      .describe('Time one API request may take before it is aborted and retried (seconds). Default 30.'),
  })
  .describe('One company credential of the Integration Reporting API.');

const reportSchedule = z
  .strictObject({
    cron: cron.describe(
      'When to send: a 5-field cron expression (minute hour day-of-month month day-of-week), or 6 fields with seconds first; numbers, names, *, ranges, lists and steps. Required. Example: `0 8 * * 1` is Mondays at 08:00.',
    ),
    timezone: timezone
      .default('UTC')
      .describe('IANA time zone the cron expression is read in, e.g. Europe/Berlin. Default UTC.'),
  })
  .describe('Send on a clock schedule. Set this or `trigger`, not both.');

const report = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .describe('Unique name of the report, used in file names, logs and the outbox. Required.'),
    account: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Name of the account to report on. Optional with one account; required when there are several.',
      ),
    query_sets: querySets.describe(
      'Query sets to report on: `all` (every active set of the account) or a list of query set ids. Default all.',
    ),
    formats: z
      .array(z.enum(['pdf', 'xlsx', 'html']))
      .min(1)
      .default(['pdf'])
      .describe('Files to render and attach: any of pdf, xlsx, html. Default [pdf].'),
    schedule: reportSchedule.optional(),
    trigger: z
      .literal('new_run', { error: 'the only trigger is new_run' })
      .optional()
      .describe('`new_run`: send as soon as a newly published run has been synced. Set this or `schedule`.'),
    email: z
      .strictObject({
        to: z.array(emailAddress).min(1).describe('Recipients (email addresses). Required, at least one.'),
        cc: z.array(emailAddress).default([]).describe('Copy recipients (email addresses). Default none.'),
        bcc: z
          .array(emailAddress)
          .default([])
          .describe('Blind copy recipients (email addresses). Default none.'),
        subject: z
          .string()
          .min(1)
          .default('AI visibility — {{brand}} — {{run}}')
          .describe(
            'Subject line, a Handlebars template with {{brand}}, {{query_set}}, {{run}} and {{report}}. Default "AI visibility — {{brand}} — {{run}}".',
          ),
      })
      .describe('Who receives the report. Required.'),
    max_attachment_mb: z
      .number()
      .positive()
      .default(10)
      .describe(
        'Largest total attachment size per email (megabytes); bigger reports are sent as a notice without the files. Default 10.',
      ),
  })
  .describe('A report emailed on a schedule or when a new run is published.');

const smtp = z
  .strictObject({
    url: z
      .url({ protocol: /^smtps?$/, error: 'expected an smtp:// or smtps:// URL' })
      .optional()
      .describe(
        'The server as one URL: smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (TLS). Replaces host, port, secure and user. Percent-encode special characters.',
      ),
    host: z.string().min(1).optional().describe('SMTP server host name. Required unless `url` is set.'),
    port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe('SMTP server port. Default 587, or 465 when `secure` is true.'),
    secure: z
      .boolean()
      .default(false)
      .describe('true: TLS from the first byte (port 465); false: STARTTLS when offered. Default false.'),
    user: z.string().min(1).optional().describe('SMTP user name. Default none (no authentication).'),
    password: z
      .string()
      .min(1)
      .optional()
      .describe('SMTP password. Set this or `password_file`; prefer `${VAR}`.'),
    password_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'File holding the SMTP password (a Docker secret); one trailing newline is ignored. Relative to the config file.',
      ),
    from: emailAddress.describe('Sender address, e.g. "reportd <reports@example.com>". Required.'),
  })
  .describe('Mail server for report emails. Required when any report is configured.');

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
          .default('./data/reportd.sqlite')
          .describe(
            'SQLite file holding the snapshots, relative to the config file. Default ./data/reportd.sqlite.',
          ),
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
          .min(0)
          .default(4)
          .describe(
            'Published runs before the latest to fetch for a newly seen query set, for trend history (count). Default 4.',
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
            'Syncs that may retry a payload the schema refused before the snapshot is kept as partial (count). Default 3.',
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
            'Chromium or Chrome executable, relative to the config file. Default: the one Puppeteer finds (/usr/bin/chromium in the Docker image).',
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
      })
      .prefault({})
      .describe('The browser that prints PDFs.'),
    smtp: smtp.optional(),
    reports: z.array(report).default([]).describe('Reports to email. Default none.'),
    http: z
      .strictObject({
        port: z
          .number()
          .int()
          .min(0)
          .max(65535)
          .optional()
          .describe('Port for /healthz, /readyz and /metrics; 0 picks a free port. Default: no HTTP server.'),
        host: z
          .string()
          .min(1)
          .default('0.0.0.0')
          .describe('Address the HTTP server listens on. Default 0.0.0.0.'),
      })
      .prefault({})
      .describe('Health and Prometheus metrics endpoints of the daemon.'),
    log: z
      .strictObject({
        level: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
          .default('info')
          .describe('Least severe log level written (JSON lines on stdout). Default info.'),
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

export type ReportConfig = Parsed['reports'][number];
export type QuerySetSelection = ReportConfig['query_sets'];
export type ReportFormat = ReportConfig['formats'][number];
export type LogLevel = Parsed['log']['level'];

/**
 * The loaded config: validated, defaults applied, paths absolute, secrets read from their files,
 * deeply frozen. Only `loadConfig` / `configFromObject` (load.ts) produce one.
 */
export type Config = Omit<Parsed, 'accounts' | 'smtp'> & { accounts: AccountConfig[]; smtp?: SmtpConfig };

/** The YAML as the user writes it (defaults optional), e.g. for `configFromObject`. */
export type ConfigInput = z.input<typeof configSchema>;
