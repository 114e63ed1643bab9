// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own interpolation syntax.
import { z } from 'zod';
import { comparisonText } from './compare-with.js';
import { cronProblem } from './cron.js';
import { DEFAULT_LOCALE, REPORT_LOCALES } from './locale-tags.js';
import { ORIENTATIONS, PAGE_SIZES } from './paper.js';
import { RECIPIENT_ZONE, recipientTable } from './recipient-schema.js';
import { REPORT_SECTIONS } from './report-sections.js';
import { SUBJECT_VARIABLES, subjectTemplateProblem } from './subject-template.js';
import { reportTemplates, reportTheme } from './theme-section.js';
import { EMAIL_ADDRESS, timezoneProblem } from './validators.js';

/**
 * Building blocks of the config schema (schema.ts): the field types checked at load time (cron,
 * time zone, email) and the sections that are list entries or optional (account, report, smtp).
 * Every field has its `.describe()` with unit and default; the reference docs are generated from it.
 */

export const cron = z.string().superRefine((expression, ctx) => {
  const problem = cronProblem(expression);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const timezone = z.string().superRefine((zone, ctx) => {
  const problem = timezoneProblem(zone);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const emailAddress = z.string().regex(EMAIL_ADDRESS, {
  message: 'expected an email address like ops@example.com or "Ops <ops@example.com>"',
});

export const querySets = z
  .union([z.literal('all'), z.array(z.number().int().positive()).min(1)], {
    error: 'expected "all" or a non-empty list of query set ids (positive integers)',
  })
  .default('all');

/**
 * Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer delay fires at once, so a
 * typo such as 9999999999 would turn a timeout or a rate window into a busy loop. Refused instead.
 */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export const positiveSeconds = z
  .number()
  .positive()
  .max(MAX_TIMER_SECONDS, {
    error: `at most ${MAX_TIMER_SECONDS} seconds (about 24.8 days): longer delays do not fit Node's timers`,
  });

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

export const account = z
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
      // A user:password@ in it would reach logs and error messages with every request line.
      .refine((value) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value), {
        error: 'must not contain credentials (user:password@); use api_key and api_secret',
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
      'When to send: a 5-field cron expression (minute hour day-of-month month day-of-week), or 6 fields with seconds first; numbers, names, *, ranges, lists and steps, `L` (last day of the month; `5L` last Friday), `W` (nearest weekday), `1#1` (first Monday) and @daily-style nicknames. Required. Example: `0 8 * * 1` is Mondays at 08:00; `0 8 L * *` the last day of each month.',
    ),
    timezone: z
      .union([z.literal(RECIPIENT_ZONE), timezone])
      .default('UTC')
      .describe(
        "IANA time zone the cron expression is read in, e.g. Europe/Berlin; `recipient` (a report with `recipients`): in each row's `timezone`, so Monday 08:00 is each reader's own 08:00. Default UTC.",
      ),
  })
  .describe('Send on a clock schedule. Set this or `trigger`, not both.');

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'expected a date like 2026-04-01' })
  .refine(
    (text) =>
      !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) &&
      new Date(`${text}T00:00:00Z`).toISOString().startsWith(text),
    {
      message: 'not a calendar date',
    },
  );

/**
 * When a scheduled thing (a report; alerts will take the same fields) may fire. Spread into its
 * object so every kind reads and documents them identically; src/schedule/lifecycle.ts applies them.
 */
export const lifecycleFields = {
  enabled: z
    .boolean()
    .default(true)
    .describe('false pauses it: kept in the config, never fires, listed as paused. Default true.'),
  active_from: isoDate
    .optional()
    .describe(
      "First day it may fire (YYYY-MM-DD, from 00:00 in the schedule's time zone; UTC for `trigger: new_run`). Default: no start date.",
    ),
  active_until: isoDate
    .optional()
    .describe(
      "Last day it may fire (YYYY-MM-DD, until 24:00 in the schedule's time zone; UTC for `trigger: new_run`). Default: no end date.",
    ),
  max_delay: z
    .string()
    .regex(/^\d+\s*[smhd]$/, { message: 'expected a duration like 90s, 30m, 6h or 2d' })
    .optional()
    .describe(
      'Oldest a slot missed while the daemon was down may be and still be sent at start-up (duration: 90s, 30m, 6h, 2d). An older one is skipped with a log line and a `history` row. Default: no limit (the missed slot is sent once at start-up).',
    ),
};

/**
 * Who hears about failures: addresses (one email per notice) and names of `channels[]` entries (one
 * post per channel per notice). rules.ts checks that each channel name exists, with its path.
 */
const notifyFields = {
  email: z
    .array(emailAddress)
    .default([])
    .describe(
      'Addresses that get one notice per incident and one when it clears (email addresses). Default none.',
    ),
  channels: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Names of `channels[]` entries that get each notice and its recovery (Slack message, Teams card, signed webhook `incident.opened` / `incident.cleared`). Default none.',
    ),
};

/** Who receives an email (reports and alerts alike). */
export const recipientFields = {
  to: z.array(emailAddress).min(1).describe('Recipients (email addresses). Required, at least one.'),
  cc: z.array(emailAddress).default([]).describe('Copy recipients (email addresses). Default none.'),
  bcc: z.array(emailAddress).default([]).describe('Blind copy recipients (email addresses). Default none.'),
};

/** A subject line: a Handlebars template whose variables are checked when the config loads. */
export const subjectTemplate = z
  .string()
  .min(1)
  .superRefine((template, ctx) => {
    const problem = subjectTemplateProblem(template);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
export const reportNotify = z
  .strictObject(notifyFields)
  .describe(
    'Failure notices for this report: a delivery that failed for good, and its recovery. Added to the top-level `notify_on_failure` recipients. Default none.',
  );

export const notifyOnFailure = z
  .strictObject({
    ...notifyFields,
    after_failed_syncs: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe('Sync passes that must fail in a row before a notice goes out (count). Default 3.'),
    store_unreachable_after: z
      .number()
      .positive()
      .default(5)
      .describe(
        "Minutes the store must refuse this daemon's writes before a notice goes out, sent directly (not through the store's outbox) to these addresses and channels, once per outage and daemon, and once more when the store is back (minutes, fractions allowed). Default 5.",
      ),
  })
  .prefault({})
  .describe(
    'Failure notices, sent once per incident through the outbox and once more when it clears: a delivery that failed for good, an API credential refused (-4), the sync failing `after_failed_syncs` passes in a row, a query set gone (-132). Default: incidents are recorded (see `reportd history`) but nobody is mailed.',
  );

/** SigV4 refuses pre-signed links that live longer than 7 days (604800 s). */
export const MAX_LINK_EXPIRY_SECONDS = 7 * 24 * 3600;

/** "90s", "45m", "12h", "7d" in seconds (the forms `link_expiry` takes). */
export function durationSeconds(text: string): number {
  const match = /^([1-9]\d{0,6})([smhd])$/.exec(text);
  if (!match) return Number.NaN;
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

const linkExpiry = z
  .string()
  .regex(/^[1-9]\d{0,6}[smhd]$/, { message: 'a duration such as 7d, 12h, 30m or 90s' })
  .default('7d')
  .refine((text) => !(durationSeconds(text) > MAX_LINK_EXPIRY_SECONDS), {
    message: 'at most 7d (S3 pre-signed links, SigV4, last 7 days at most)',
  })
  .describe(
    "How long the links of `attach: links`/`auto` work: 90s, 30m, 12h or 7d, at most 7d (SigV4's limit). The email says until when. Default 7d.",
  );

export const report = z
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
    mode: z
      .enum(['digest', 'per_set'])
      .default('digest')
      .describe(
        '`digest`: one email per due slot covering the newest run of every query set (one PDF with a portfolio page, a contents page and bookmarks); `per_set`: one email per query set and run. Default digest.',
      ),
    sections: z
      .array(z.enum(REPORT_SECTIONS))
      .min(1)
      .default([...REPORT_SECTIONS])
      .describe(
        `Sections of each set's report, in this order: any of ${REPORT_SECTIONS.join(', ')}. Default all.`,
      ),
    detail: z
      .enum(['full', 'summary'])
      .default('full')
      .describe(
        '`full`: every chosen section; `summary`: a two-page executive brief per set (KPI cards, summary text, competitive bar, top movers, open errors). Default full.',
      ),
    schedule: reportSchedule.optional(),
    trigger: z
      .literal('new_run', { error: 'the only trigger is new_run' })
      .optional()
      .describe('`new_run`: send as soon as a newly published run has been synced. Set this or `schedule`.'),
    locale: z
      .enum(REPORT_LOCALES, { error: `expected one of ${REPORT_LOCALES.join(', ')}` })
      .default(DEFAULT_LOCALE)
      .describe(
        `Language and number style of the PDF, HTML, workbook and email (BCP 47): ${REPORT_LOCALES.join(', ')}. Default ${DEFAULT_LOCALE}.`,
      ),
    compare_with: comparisonText
      .optional()
      .describe(
        'What the headline cards (PDF, email, digest) compare with: `previous` (the run before), `N runs` (e.g. `4 runs`: the run 4 stored runs back) or `N weeks` / `N days` (the stored run nearest that calendar offset, e.g. `52 weeks`; when none is stored that old the card says "no stored run that old" and shows no change). Default previous.',
      ),
    false_discovery_rate: z
      .number()
      .gt(0, { error: 'expected a rate above 0, e.g. 0.05' })
      .max(0.2, { error: 'expected a rate of at most 0.2' })
      .default(0.05)
      .describe(
        'The false discovery rate a document holds its changes to: the PDF, workbook and email (each set of a digest apart) judge their changes together with Benjamini–Hochberg at this rate, half of it reserved for the headline presence figures, and call a change likely only then. Default 0.05.',
      ),
    require_likely_change: z
      .boolean()
      .default(false)
      .describe(
        'Deliver only runs with at least one likely change in their report (a digest: in any of its sets); a run without one is not sent and `reportd history` lists it as skipped, with why. Default false: every run is sent.',
      ),
    page: z
      .strictObject({
        size: z
          .enum(PAGE_SIZES)
          .default('A4')
          .describe(`Paper of the PDF: ${PAGE_SIZES.join(', ')}. Default A4.`),
        orientation: z
          .enum(ORIENTATIONS)
          .default('portrait')
          .describe('portrait or landscape. Default portrait.'),
      })
      .default({ size: 'A4', orientation: 'portrait' })
      .describe('Paper size and orientation of the PDF. Default A4 portrait.'),
    theme: reportTheme,
    templates: reportTemplates,
    timezone: timezone
      .optional()
      .describe(
        "IANA time zone of the dates printed in the documents (run date, generated at), e.g. Europe/Berlin. Default: the schedule's timezone, else UTC.",
      ),
    email: z
      .strictObject({
        ...recipientFields,
        // Empty only beside `recipients` (rules.ts): then the rows say who, and this section the subject.
        to: z
          .array(emailAddress)
          .default([])
          .describe(
            'Recipients (email addresses). Required, at least one, unless the report has `recipients`.',
          ),
        subject: subjectTemplate
          .optional()
          .describe(
            `Subject line, a Handlebars template with ${SUBJECT_VARIABLES.map((v) => `{{${v}}}`).join(', ')} ({{query_set}} and {{run}}: the query set's name and the run's label, e.g. "Week 37 · 2026", in a digest the first set's; {{sets}}: how many query sets the message covers; {{period}}: the runs' labels, collapsed when equal). Default "AI visibility — {{brand}} — {{run}}" (a digest: "AI visibility digest — {{report}} — {{period}}"), in the report's locale.`,
          ),
        attach: z
          .enum(['files', 'links', 'auto'])
          .default('files')
          .describe(
            '`files`: the PDF and workbook travel as attachments (up to `max_attachment_mb`); `links`: they are uploaded to the S3 channel `links_from` names and the email carries pre-signed links that work for `link_expiry`; `auto`: attachments while they fit in `max_attachment_mb`, links when they do not. Default files.',
          ),
        links_from: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Name of the `type: s3` channel the files are uploaded to for links (same names, hashes and manifest as that channel writes). Required with attach: links or auto.',
          ),
        link_expiry: linkExpiry,
      })
      .optional()
      .describe('Who receives the report by email. Set this, `channels`, or both.'),
    channels: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Names of `channels[]` entries that also (or instead) get the report. Default none.'),
    recipients: recipientTable,
    ...lifecycleFields,
    notify_on_failure: reportNotify.optional(),
    max_attachment_mb: z
      .number()
      .positive()
      .default(10)
      .describe(
        'Largest total attachment size per email (megabytes); bigger reports are sent as a notice without the files. Default 10.',
      ),
  })
  .describe('A report delivered (by email and/or channels) on a schedule or when a new run is published.');

export const smtp = z
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
    shutdown_grace_seconds: positiveSeconds
      .max(600)
      .default(75)
      .describe(
        'How long the daemon, asked to stop, waits for an SMTP exchange in flight to get its answer (seconds). Default 75: past the 60 s socket timeout, so the exchange ends in an answer that is recorded. Give the container this plus 5 s to stop (`docker stop -t 80`, compose `stop_grace_period: 80s`); a kill before that resends the message with the same Message-ID.',
      ),
  })
  .describe('Mail server for report emails. Required when any report has `email`.');

/**
 * Who may see the status page and its downloads when the listener is not on loopback. Secrets come
 * from ${VAR} or a `*_file` (Docker secrets), like the API secret; they are masked in `check`.
 */
export const httpAuth = z
  .strictObject({
    bearer_token: z
      .string()
      .min(16, { message: 'use at least 16 characters (e.g. `openssl rand -hex 24`)' })
      .optional()
      .describe(
        'Token clients send as `Authorization: Bearer TOKEN`; write it as ${VAR}. Set this, `bearer_token_file` or `username` + `password`.',
      ),
    bearer_token_file: z
      .string()
      .min(1)
      .optional()
      .describe('File holding the bearer token (Docker secrets), relative to the config file.'),
    username: z
      .string()
      .min(1)
      .optional()
      .describe('Basic auth user name (with `password` or `password_file`).'),
    password: z.string().min(1).optional().describe('Basic auth password; write it as ${VAR}.'),
    password_file: z
      .string()
      .min(1)
      .optional()
      .describe('File holding the basic auth password, relative to the config file.'),
  })
  .describe(
    'Credentials for the status page (`GET /`) and its downloads. Without them the page is served only when `host` is a loopback address (127.0.0.1, ::1, localhost); /healthz, /readyz and /metrics never ask. Default none.',
  );
